-- Idempotency keys are claimed by the jobs service, in the transaction that creates the job
-- (jobs migration 0013): a claim here, outside that transaction, could not stop a retry from
-- creating a second job after a failure between the two.
DROP TABLE idempotency_keys;
