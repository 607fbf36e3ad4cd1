"""The life of a process: its start (telemetry, database, migrations, broker epoch, ops endpoint), its
parts (outbox relay, consumers, gRPC server), its commands (`migrate`, `dead-letters`) and a clean stop."""
