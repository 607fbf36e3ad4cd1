-- Agent-gateway replicas alive: each one heartbeats its row every few seconds. The computers of a
-- replica whose row is stale or missing are marked offline by the sweep (a replica that died
-- cannot report its agents' disconnects).
CREATE TABLE gateway_instances (
    instance_id text PRIMARY KEY,
    last_heartbeat_at timestamptz NOT NULL
);
CREATE INDEX computers_online_by_gateway ON computers (gateway_instance) WHERE state = 'online';
