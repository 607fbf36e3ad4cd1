-- When each endpoint was enabled: an event goes to the endpoints that were enabled when it
-- happened, however late it is consumed. `enabled_until` is null for the open period.
CREATE TABLE endpoint_enabled_periods (
    endpoint_id uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
    enabled_from timestamptz NOT NULL,
    enabled_until timestamptz,
    PRIMARY KEY (endpoint_id, enabled_from)
);
CREATE UNIQUE INDEX endpoint_enabled_periods_open ON endpoint_enabled_periods (endpoint_id) WHERE enabled_until IS NULL;
INSERT INTO endpoint_enabled_periods (endpoint_id, enabled_from, enabled_until)
    SELECT id, created_at, CASE WHEN enabled THEN NULL ELSE updated_at END FROM endpoints;
