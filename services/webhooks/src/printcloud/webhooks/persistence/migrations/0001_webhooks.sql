-- Webhook endpoints of each organization and mode. The secret is kept to sign deliveries and is
-- shown only in the creation answer.
CREATE TABLE endpoints (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL CHECK (mode IN ('live', 'test')),
    url text NOT NULL,
    description text NOT NULL,
    events text[] NOT NULL,
    secret text NOT NULL,
    enabled boolean NOT NULL,
    disabled_reason text,
    -- First failed attempt since the last success; drives the automatic disabling.
    failing_since timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX endpoints_scope ON endpoints (organization_id, mode, id);

-- The event feed. Ids are minted while the scope's advisory lock is held until commit, so a
-- committed id is always greater than every id committed before it in that scope.
CREATE TABLE events (
    id uuid PRIMARY KEY,
    organization_id uuid NOT NULL,
    mode text NOT NULL,
    type text NOT NULL,
    occurred_at timestamptz NOT NULL,
    data jsonb NOT NULL,
    recorded_at timestamptz NOT NULL
);
CREATE INDEX events_scope ON events (organization_id, mode, id);
CREATE INDEX events_recorded_at ON events (recorded_at);

-- One row per (endpoint, event send): the durable schedule and the delivery log at once.
CREATE TABLE deliveries (
    id uuid PRIMARY KEY,
    endpoint_id uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    organization_id uuid NOT NULL,
    mode text NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    attempt integer NOT NULL DEFAULT 0,
    status text NOT NULL CHECK (status IN ('pending', 'retrying', 'succeeded', 'failed')),
    response_code integer,
    response_body_excerpt text,
    next_attempt_at timestamptz,
    delivered_at timestamptz,
    created_at timestamptz NOT NULL,
    -- A worker that claimed the row owns it until then; after a crash it becomes claimable again.
    locked_until timestamptz
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX deliveries_endpoint ON deliveries (endpoint_id, id);
CREATE INDEX deliveries_created_at ON deliveries (created_at);

-- Owners' e-mail addresses, learnt from organization events (the gateway owns the people).
CREATE TABLE organization_owners (
    organization_id uuid NOT NULL,
    email text NOT NULL,
    PRIMARY KEY (organization_id, email)
);

-- E-mails to send, written in the transaction that decided them; the mailer sends and marks them.
CREATE TABLE outgoing_mail (
    id uuid PRIMARY KEY,
    recipient text NOT NULL,
    subject text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    sent_at timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL
);
CREATE INDEX outgoing_mail_unsent ON outgoing_mail (next_attempt_at) WHERE sent_at IS NULL;
