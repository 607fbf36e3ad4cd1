-- Computers running an agent. `state` is the public state (online, offline, disabled); the virtual
-- test computer of an organization is an ordinary row with is_virtual set.
CREATE TABLE computers (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    name text NOT NULL,
    hostname text NOT NULL DEFAULT '',
    os text NOT NULL DEFAULT '',
    os_version text NOT NULL DEFAULT '',
    arch text NOT NULL DEFAULT '',
    agent_version text NOT NULL DEFAULT '',
    state text NOT NULL DEFAULT 'offline' CHECK (state IN ('online', 'offline', 'disabled')),
    is_virtual boolean NOT NULL DEFAULT false,
    disabled boolean NOT NULL DEFAULT false,
    deleted_at timestamptz,
    -- The agent-gateway replica holding the agent's WebSocket, so that a late disconnect from an
    -- old replica does not undo a reconnect on another.
    gateway_instance text,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz
);
CREATE INDEX computers_scope_id ON computers (organization_id, mode, id) WHERE deleted_at IS NULL;
-- The organization.created consumer relies on this to create one virtual computer at most.
CREATE UNIQUE INDEX computers_one_virtual_per_organization ON computers (organization_id)
    WHERE is_virtual AND deleted_at IS NULL;

CREATE TABLE printers (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    computer_id uuid NOT NULL REFERENCES computers (id),
    name text NOT NULL,
    os_name text NOT NULL,
    description text NOT NULL DEFAULT '',
    display_name text NOT NULL,
    remarks text,
    enabled boolean NOT NULL DEFAULT true,
    is_default boolean NOT NULL DEFAULT false,
    state text NOT NULL CHECK (state IN ('online', 'offline')),
    state_detail text NOT NULL DEFAULT '',
    capabilities jsonb NOT NULL DEFAULT '{}'::jsonb,
    default_options jsonb NOT NULL DEFAULT '{}'::jsonb,
    custom_papers jsonb NOT NULL DEFAULT '[]'::jsonb,
    removed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
-- `name` is the printer's stable key on its computer.
CREATE UNIQUE INDEX printers_computer_name ON printers (computer_id, name) WHERE removed_at IS NULL;
CREATE INDEX printers_scope_id ON printers (organization_id, mode, id) WHERE removed_at IS NULL;
CREATE INDEX printers_scope_computer_id ON printers (organization_id, mode, computer_id, id) WHERE removed_at IS NULL;

-- Only the SHA-256 of a credential is stored; the plaintext is shown once.
CREATE TABLE agent_credentials (
    id uuid PRIMARY KEY,
    computer_id uuid NOT NULL REFERENCES computers (id),
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    token_hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX agent_credentials_computer ON agent_credentials (computer_id);
