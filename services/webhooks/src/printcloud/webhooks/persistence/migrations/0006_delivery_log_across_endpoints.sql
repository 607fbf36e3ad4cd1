-- The delivery log of every endpoint of a scope at once, newest first (the dashboard's log).
CREATE INDEX deliveries_scope ON deliveries (organization_id, mode, id);
-- The headers each attempt was sent with (the signature and timestamp differ per attempt).
ALTER TABLE delivery_attempts ADD COLUMN request_headers jsonb NOT NULL DEFAULT '{}';
