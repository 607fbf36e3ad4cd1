-- When the last attempt ended. The wait before the next attempt counts from here, so the row shows
-- the wait the worker chose (next_attempt_at - last_attempt_at), not only when it will send again.
ALTER TABLE deliveries ADD COLUMN last_attempt_at timestamptz;
