-- Dashboard accounts: invitations, e-mailed sign-in codes, sessions, and named API keys.

-- An owner invites an address into the organization with a role; the invitation is accepted the
-- next time that address signs in. One open invitation per (organization, address).
CREATE TABLE invitations (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    email text NOT NULL,
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    invited_by uuid NOT NULL REFERENCES users (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    accepted_at timestamptz,
    revoked_at timestamptz
);
CREATE UNIQUE INDEX invitations_open ON invitations (organization_id, email)
    WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX invitations_email ON invitations (email) WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- One-time sign-in codes: only a salted hash is kept. A code ends when used, when it expires, or
-- after its last allowed wrong try; a new code for the address ends the older ones.
CREATE TABLE sign_in_codes (
    id uuid PRIMARY KEY,
    email text NOT NULL,
    code_hash text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    wrong_tries integer NOT NULL DEFAULT 0,
    ended_at timestamptz
);
CREATE INDEX sign_in_codes_email ON sign_in_codes (email, created_at);

-- Requests for codes, counted per address and per client address to rate limit them on every
-- replica alike. Rows older than the longest window are purged.
CREATE TABLE sign_in_requests (
    subject text NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_requests_subject ON sign_in_requests (subject, requested_at);

-- Dashboard sessions. The cookie carries a random token; only its SHA-256 is stored. A session
-- acts for one organization and mode at a time, changed by the dashboard's switchers.
CREATE TABLE sessions (
    id uuid PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    user_id uuid NOT NULL REFERENCES users (id),
    organization_id uuid NOT NULL REFERENCES organizations (id),
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id);

ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';
-- Keys made before this column show only their prefix.
ALTER TABLE api_keys ADD COLUMN key_last_four text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN created_by uuid REFERENCES users (id);
