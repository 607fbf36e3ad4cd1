-- Live prints per organization per calendar month (UTC), counted in the transaction that creates
-- the job, so the count and the jobs can never disagree (docs/internals.md, "Plans and quotas").
CREATE TABLE live_print_counts (
    organization_id uuid NOT NULL,
    month date NOT NULL,  -- the first day of the month
    prints integer NOT NULL,
    PRIMARY KEY (organization_id, month)
);
