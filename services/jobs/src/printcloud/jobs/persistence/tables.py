"""SQLAlchemy Core tables of the `jobs` schema; `migrations/` is what creates them."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Date, DateTime, ForeignKey, Integer, LargeBinary, MetaData, Table, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from printcloud.core.kafka.outbox import Outbox
from printcloud.core.kafka.processed_messages import ProcessedMessages

SCHEMA = "jobs"

metadata = MetaData(schema=SCHEMA)

stored_files = Table(
    "stored_files",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

stored_file_chunks = Table(
    "stored_file_chunks",
    metadata,
    Column("file_id", UUID(as_uuid=True), ForeignKey(stored_files.c.id, ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("data", LargeBinary, nullable=False),
)

print_jobs = Table(
    "print_jobs",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("printer_id", UUID(as_uuid=True), nullable=False),
    Column("computer_id", UUID(as_uuid=True), nullable=False),
    Column("printer_name", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("content_type", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("qty", Integer, nullable=False),
    Column("options", JSONB, nullable=False),
    Column("custom_paper", JSONB),
    Column("expire_after", Integer, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("file_id", UUID(as_uuid=True), ForeignKey(stored_files.c.id, ondelete="SET NULL")),
    Column("file_sha256", Text, nullable=False),
    Column("file_size", BigInteger, nullable=False),
    Column("state", Text, nullable=False),
    Column("state_message", Text),
    Column("send_count", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True)),
    Column("received_at", DateTime(timezone=True)),
    Column("printing_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    Column("events_topic", Text),
)

job_state_changes = Table(
    "job_state_changes",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("job_id", UUID(as_uuid=True), ForeignKey(print_jobs.c.id, ondelete="CASCADE"), nullable=False),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("message", Text),
    Column("actor", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

pending_fetches = Table(
    "pending_fetches",
    metadata,
    Column("job_id", UUID(as_uuid=True), ForeignKey(print_jobs.c.id, ondelete="CASCADE"), primary_key=True),
    Column("url", Text, nullable=False),
    Column("auth_user", Text),
    Column("auth_pass", Text),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("claimed_until", DateTime(timezone=True)),
)

test_job_counts = Table(
    "test_job_counts",
    metadata,
    Column("organization_id", UUID(as_uuid=True), primary_key=True),
    Column("day", Date, primary_key=True),
    Column("jobs", Integer, nullable=False),
)

live_print_counts = Table(
    "live_print_counts",
    metadata,
    Column("organization_id", UUID(as_uuid=True), primary_key=True),
    Column("month", Date, primary_key=True),
    Column("prints", Integer, nullable=False),
)

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("organization_id", UUID(as_uuid=True), primary_key=True),
    Column("key", Text, primary_key=True),
    Column("fingerprint", Text, nullable=False),
    Column("job_id", UUID(as_uuid=True), nullable=False),
    Column("response", LargeBinary, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

printer_conditions = Table(
    "printer_conditions",
    metadata,
    Column("printer_id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("state_reasons", ARRAY(Text), nullable=False),
    Column("state_detail", Text, nullable=False),
    Column("as_of", DateTime(timezone=True), nullable=False),
)

printer_fact_scopes = Table(
    "printer_fact_scopes",
    metadata,
    Column("organization_id", UUID(as_uuid=True), primary_key=True),
    Column("mode", Text, primary_key=True),
    Column("generation", BigInteger, nullable=False),
)

printer_facts = Table(
    "printer_facts",
    metadata,
    Column("printer_id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("generation", BigInteger, nullable=False),
    Column("printer", LargeBinary, nullable=False),
    Column("filled_at", DateTime(timezone=True), nullable=False),
)

outbox = Outbox(metadata)
# Created by the core migrations; the printer events consumer records what it handled here.
processed_messages = ProcessedMessages(metadata)
