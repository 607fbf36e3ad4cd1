"""Kafka: the cluster and its topics, the event envelope, the bus, the outbox, the consumers' ledger
and dead letters, and the life of the broker's log."""
