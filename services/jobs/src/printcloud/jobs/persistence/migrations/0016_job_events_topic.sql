-- The Kafka topic that carries a job's `printjob.*` events, fixed when the job is created: every
-- replica, of this release or the next, then sends one job's events to one topic, whose partition
-- keeps them in order. None: `printcloud.domain-events`, the only topic releases up to this one use.
ALTER TABLE print_jobs ADD COLUMN events_topic text;
