-- migration: no transaction
-- The delivery log of every endpoint of a scope at once, newest first (the dashboard's log). Built
-- without blocking the deliveries being written meanwhile.
CREATE INDEX CONCURRENTLY IF NOT EXISTS deliveries_scope ON deliveries (organization_id, mode, id);
