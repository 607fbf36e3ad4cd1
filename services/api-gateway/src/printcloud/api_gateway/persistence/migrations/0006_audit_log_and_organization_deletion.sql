-- Who did what in an organization, read by its owners in the dashboard. Written in the
-- transaction of the change when the gateway owns the data (API keys, members, invitations, the
-- organization's settings), and right after the owning service's answer otherwise (printers,
-- computers, webhook endpoints). `target` is a label as it was then (an address, a key's name, a
-- printer's name), so an entry still reads well after what it names is gone.
CREATE TABLE audit_log (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL REFERENCES organizations (id),
    -- NULL: the organization itself (keys, members, settings); otherwise the mode of the resource.
    mode text CHECK (mode IN ('live', 'test')),
    -- Neither set: the operator CLI.
    actor_user_id uuid REFERENCES users (id),
    actor_api_key_id uuid REFERENCES api_keys (id),
    action text NOT NULL,
    target_id text NOT NULL DEFAULT '',
    target text NOT NULL DEFAULT '',
    details jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Ids are UUIDv7: newest first is id order, and the id is the page cursor.
CREATE INDEX audit_log_organization ON audit_log (organization_id, id);

-- A deleted organization keeps its row (other rows and the audit log refer to it) and loses every
-- way in: its keys are revoked, its memberships, invitations and sessions ended.
ALTER TABLE organizations ADD COLUMN deleted_at timestamptz;
