-- URL content waiting to be fetched. The URL and Basic credentials live only here, never on the
-- job, and for at most an hour: the row is deleted once fetched, or when it expires.
CREATE TABLE pending_fetches (
    job_id uuid PRIMARY KEY REFERENCES print_jobs (id) ON DELETE CASCADE,
    url text NOT NULL,
    auth_user text,
    auth_pass text,
    expires_at timestamptz NOT NULL,
    -- A fetcher holds a row until then; a row of a fetcher that died is taken over after it.
    claimed_until timestamptz
);
CREATE INDEX pending_fetches_expires_at ON pending_fetches (expires_at);

-- Test jobs per organization per UTC day (spec: at most 500); counted in the creating transaction.
CREATE TABLE test_job_counts (
    organization_id uuid NOT NULL,
    day date NOT NULL,
    jobs integer NOT NULL,
    PRIMARY KEY (organization_id, day)
);
