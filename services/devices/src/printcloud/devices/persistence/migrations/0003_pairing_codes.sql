-- Pairing codes (docs/api.md, "Pairing codes"). Additive only: new tables, nothing existing changes.
-- The code itself is never stored: `lookup_key` is the HMAC-SHA256 (hex) of the normalised code,
-- keyed by a server secret, and is how an agent's code is found.
CREATE TABLE pairing_codes (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    lookup_key text NOT NULL UNIQUE,
    hint text NOT NULL,
    description text NOT NULL DEFAULT '',
    max_uses integer NOT NULL CHECK (max_uses BETWEEN 1 AND 1000),
    uses integer NOT NULL DEFAULT 0 CHECK (uses BETWEEN 0 AND max_uses),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pairing_codes_scope_id ON pairing_codes (organization_id, mode, id);

-- Each computer a code enrolled, so an owner sees where the code went.
CREATE TABLE pairing_code_enrollments (
    id uuid PRIMARY KEY,
    pairing_code_id uuid NOT NULL REFERENCES pairing_codes (id),
    computer_id uuid NOT NULL REFERENCES computers (id),
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    name text NOT NULL,
    hostname text NOT NULL,
    client_address text NOT NULL,
    enrolled_at timestamptz NOT NULL
);
CREATE INDEX pairing_code_enrollments_code_id ON pairing_code_enrollments (pairing_code_id, id);

-- Wrong codes, one row per subject (`address:<client address>`, `prefix:<first group>`), counted
-- over a sliding window and purged once older than it.
CREATE TABLE pairing_failures (
    subject text NOT NULL,
    failed_at timestamptz NOT NULL
);
CREATE INDEX pairing_failures_subject_time ON pairing_failures (subject, failed_at);
CREATE INDEX pairing_failures_time ON pairing_failures (failed_at);
