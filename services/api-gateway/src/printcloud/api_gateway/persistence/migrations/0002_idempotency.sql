-- Idempotency-Key records of POST /v1/printjobs, per organization, kept 24 hours. A row with no
-- status is a first request still in progress; it belongs to that request until locked_until,
-- after which a gateway replica that died mid-request no longer blocks the key.
CREATE TABLE idempotency_keys (
    organization_id uuid NOT NULL REFERENCES organizations (id),
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    fingerprint text NOT NULL,
    status integer,
    response jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz NOT NULL,
    PRIMARY KEY (organization_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
