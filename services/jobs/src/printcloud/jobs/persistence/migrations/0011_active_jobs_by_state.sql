-- Lets the jobs-by-state gauge count only the jobs still in progress, from an index that holds
-- only them, however many finished jobs the table keeps.
CREATE INDEX print_jobs_active_by_state ON print_jobs (state, mode) WHERE state IN ('queued', 'sent', 'received', 'printing');
