-- Tenants, the people in them, and the API keys that act for them.
CREATE TABLE organizations (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    plan text NOT NULL DEFAULT 'free',
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id uuid PRIMARY KEY,
    email text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE memberships (
    organization_id uuid NOT NULL REFERENCES organizations (id),
    user_id uuid NOT NULL REFERENCES users (id),
    role text NOT NULL CHECK (role IN ('owner', 'member')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);

-- Only a hash of each key is kept; key_prefix lets people recognise a key in a listing.
CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    key_hash text NOT NULL UNIQUE,
    key_prefix text NOT NULL,
    scopes text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'print', 'admin']::text[]),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    last_used_at timestamptz
);
CREATE INDEX api_keys_organization ON api_keys (organization_id, mode);
