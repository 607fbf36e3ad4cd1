-- The headers each attempt was sent with (the signature and timestamp differ per attempt).
ALTER TABLE delivery_attempts ADD COLUMN request_headers jsonb NOT NULL DEFAULT '{}';
