"""SQLAlchemy Core tables of the `webhooks` schema (created by the SQL files in `migrations/`)."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, ForeignKey, Integer, MetaData, Table, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from printcloud.core.kafka.processed_messages import ProcessedMessages

SCHEMA = "webhooks"

metadata = MetaData(schema=SCHEMA)

endpoints = Table(
    "endpoints",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("events", ARRAY(Text), nullable=False),
    Column("secret", Text, nullable=False),
    Column("enabled", Boolean, nullable=False),
    Column("disabled_reason", Text),
    Column("failing_since", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

endpoint_enabled_periods = Table(
    "endpoint_enabled_periods",
    metadata,
    Column("endpoint_id", UUID(as_uuid=True), ForeignKey(endpoints.c.id, ondelete="CASCADE"), primary_key=True),
    Column("enabled_from", DateTime(timezone=True), primary_key=True),
    Column("enabled_until", DateTime(timezone=True)),
)

events = Table(
    "events",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("type", Text, nullable=False),
    Column("occurred_at", DateTime(timezone=True), nullable=False),
    Column("data", JSONB, nullable=False),
    Column("recorded_at", DateTime(timezone=True), nullable=False),
)

deliveries = Table(
    "deliveries",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("endpoint_id", UUID(as_uuid=True), ForeignKey(endpoints.c.id, ondelete="CASCADE"), nullable=False),
    Column("organization_id", UUID(as_uuid=True), nullable=False),
    Column("mode", Text, nullable=False),
    Column("event_id", UUID(as_uuid=True), nullable=False),
    Column("event_type", Text, nullable=False),
    Column("payload", JSONB, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("status", Text, nullable=False),
    Column("response_code", Integer),
    Column("response_body_excerpt", Text),
    Column("next_attempt_at", DateTime(timezone=True)),
    Column("last_attempt_at", DateTime(timezone=True)),
    Column("delivered_at", DateTime(timezone=True)),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("locked_until", DateTime(timezone=True)),
)

delivery_attempts = Table(
    "delivery_attempts",
    metadata,
    Column("delivery_id", UUID(as_uuid=True), ForeignKey(deliveries.c.id, ondelete="CASCADE"), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("sent_at", DateTime(timezone=True), nullable=False),
    Column("response_code", Integer),
    Column("response_body_excerpt", Text, nullable=False),
    Column("request_headers", JSONB, nullable=False),
)

organization_owners = Table(
    "organization_owners",
    metadata,
    Column("organization_id", UUID(as_uuid=True), primary_key=True),
    Column("email", Text, primary_key=True),
)

outgoing_mail = Table(
    "outgoing_mail",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("recipient", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True)),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
)

# Created by the core migrations (`printcloud.core.kafka.sql`) in this schema.
processed_messages = ProcessedMessages(metadata)
