-- Claiming walks the endpoints that have pending deliveries and takes each one's earliest few, so a
-- claim costs one probe per such endpoint rather than a pass over every due delivery: a backlog of
-- thousands at one slow endpoint no longer slows the claims that serve everyone else.
CREATE INDEX deliveries_pending_by_endpoint ON deliveries (endpoint_id, next_attempt_at, id)
    WHERE status IN ('pending', 'retrying');
