"""SQLAlchemy Core tables of the `devices` schema (created by the SQL files in `migrations/`)."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, ForeignKey, Integer, MetaData, Table, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from printcloud.core.kafka.outbox import Outbox
from printcloud.core.kafka.processed_messages import ProcessedMessages

SCHEMA = "devices"

metadata = MetaData(schema=SCHEMA)

computers = Table(
    "computers",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("hostname", Text, nullable=False),
    Column("os", Text, nullable=False),
    Column("os_version", Text, nullable=False),
    Column("arch", Text, nullable=False),
    Column("agent_version", Text, nullable=False),
    Column("state", Text, nullable=False),
    Column("is_virtual", Boolean, nullable=False),
    Column("disabled", Boolean, nullable=False),
    Column("deleted_at", DateTime(timezone=True)),
    Column("gateway_instance", Text),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen_at", DateTime(timezone=True)),
)

printers = Table(
    "printers",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("computer_id", UUID(as_uuid=True), ForeignKey(computers.c.id), nullable=False),
    Column("name", Text, nullable=False),
    Column("os_name", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("display_name", Text, nullable=False),
    Column("remarks", Text),
    Column("enabled", Boolean, nullable=False),
    Column("is_default", Boolean, nullable=False),
    Column("state", Text, nullable=False),
    Column("state_detail", Text, nullable=False),
    Column("state_reasons", ARRAY(Text), nullable=False),
    Column("capabilities", JSONB, nullable=False),
    Column("default_options", JSONB, nullable=False),
    Column("custom_papers", JSONB, nullable=False),
    Column("removed_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

agent_credentials = Table(
    "agent_credentials",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("computer_id", UUID(as_uuid=True), ForeignKey(computers.c.id), nullable=False),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
)

gateway_instances = Table(
    "gateway_instances",
    metadata,
    Column("instance_id", Text, primary_key=True),
    Column("last_heartbeat_at", DateTime(timezone=True), nullable=False),
)

pairing_codes = Table(
    "pairing_codes",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("lookup_key", Text, nullable=False, unique=True),
    Column("hint", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("max_uses", Integer, nullable=False),
    Column("uses", Integer, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

pairing_code_enrollments = Table(
    "pairing_code_enrollments",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("pairing_code_id", UUID(as_uuid=True), ForeignKey(pairing_codes.c.id), nullable=False),
    Column("computer_id", UUID(as_uuid=True), ForeignKey(computers.c.id), nullable=False),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("hostname", Text, nullable=False),
    Column("client_address", Text, nullable=False),
    Column("enrolled_at", DateTime(timezone=True), nullable=False),
)

pairing_failures = Table(
    "pairing_failures",
    metadata,
    Column("subject", Text, nullable=False),
    Column("failed_at", DateTime(timezone=True), nullable=False),
)

# Created by the core migrations (`printcloud.core.kafka.sql`) in this schema.
processed_messages = ProcessedMessages(metadata)

outbox = Outbox(metadata)
