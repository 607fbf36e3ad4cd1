-- Job timers (resend, spooler timeout, expiry) live on the job row: a dispatcher finds due jobs
-- with these partial indexes and fires each in the transaction of its change.
ALTER TABLE print_jobs ADD COLUMN resend_count integer NOT NULL DEFAULT 0;
-- When the last resend went out; the wait for an acknowledgement restarts from it.
ALTER TABLE print_jobs ADD COLUMN last_resent_at timestamptz;

CREATE INDEX print_jobs_expiry_due ON print_jobs (expires_at) WHERE state IN ('queued', 'sent');
CREATE INDEX print_jobs_resend_due ON print_jobs ((coalesce(last_resent_at, sent_at))) WHERE state = 'sent';
CREATE INDEX print_jobs_printing_due ON print_jobs (printing_at) WHERE state = 'printing';
