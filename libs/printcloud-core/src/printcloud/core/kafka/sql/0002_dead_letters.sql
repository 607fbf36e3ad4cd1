-- Messages a consumer of this schema could not handle after its attempts (`printcloud.core.dead_letters`),
-- kept as received until an operator replays or discards them.
CREATE TABLE dead_letters (
    id uuid PRIMARY KEY,
    consumer text NOT NULL,
    topic text NOT NULL,
    partition integer NOT NULL,
    "offset" bigint NOT NULL,
    key text,
    value bytea NOT NULL,
    headers jsonb NOT NULL,
    error text NOT NULL,
    attempts integer NOT NULL,
    failed_at timestamptz NOT NULL,
    replayed_at timestamptz
);
