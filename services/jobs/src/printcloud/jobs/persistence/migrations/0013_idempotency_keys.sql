-- Idempotency keys of POST /v1/printjobs, claimed in the transaction that creates the job, so a
-- key can never name two jobs whatever fails between the client, the gateway and this service.
-- `response` is the first answer (a serialized printcloud.v1.PrintJob), replayed as it was.
CREATE TABLE idempotency_keys (
    organization_id uuid NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    job_id uuid NOT NULL,
    response bytea NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (organization_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
