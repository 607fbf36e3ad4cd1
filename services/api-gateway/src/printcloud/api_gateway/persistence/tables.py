"""The gateway schema as SQLAlchemy Core tables; the SQL migrations are the source of truth."""

from __future__ import annotations

from sqlalchemy import Column, DateTime, ForeignKey, Integer, MetaData, Table, Text, func
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from printcloud.core.kafka.outbox import Outbox

SCHEMA = "gateway"

metadata = MetaData(schema=SCHEMA)

organizations = Table(
    "organizations",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("name", Text, nullable=False),
    Column("plan", Text, nullable=False, server_default="free"),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("deleted_at", DateTime(timezone=True)),
)

users = Table(
    "users",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("email", Text, nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

memberships = Table(
    "memberships",
    metadata,
    Column("organization_id", UUID(as_uuid=True), ForeignKey(organizations.c.id), primary_key=True),
    Column("user_id", UUID(as_uuid=True), ForeignKey(users.c.id), primary_key=True),
    Column("role", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), ForeignKey(organizations.c.id), nullable=False),
    Column("mode", Text, nullable=False),
    Column("key_hash", Text, nullable=False, unique=True),
    Column("key_prefix", Text, nullable=False),
    Column("scopes", ARRAY(Text), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("revoked_at", DateTime(timezone=True)),
    Column("last_used_at", DateTime(timezone=True)),
    Column("name", Text, nullable=False, server_default=""),
    Column("key_last_four", Text, nullable=False, server_default=""),
    Column("created_by", UUID(as_uuid=True), ForeignKey(users.c.id)),
)

invitations = Table(
    "invitations",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), ForeignKey(organizations.c.id), nullable=False),
    Column("email", Text, nullable=False),
    Column("role", Text, nullable=False),
    Column("invited_by", UUID(as_uuid=True), ForeignKey(users.c.id), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("accepted_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
)

sign_in_codes = Table(
    "sign_in_codes",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("email", Text, nullable=False),
    Column("code_hash", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("wrong_tries", Integer, nullable=False, server_default="0"),
    Column("ended_at", DateTime(timezone=True)),
)

sign_in_requests = Table(
    "sign_in_requests",
    metadata,
    Column("subject", Text, nullable=False),
    Column("requested_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("user_id", UUID(as_uuid=True), ForeignKey(users.c.id), nullable=False),
    Column("organization_id", UUID(as_uuid=True), ForeignKey(organizations.c.id), nullable=False),
    Column("mode", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("last_seen_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True)),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("organization_id", UUID(as_uuid=True), ForeignKey(organizations.c.id), nullable=False),
    Column("mode", Text),
    Column("actor_user_id", UUID(as_uuid=True), ForeignKey(users.c.id)),
    Column("actor_api_key_id", UUID(as_uuid=True), ForeignKey(api_keys.c.id)),
    Column("action", Text, nullable=False),
    Column("target_id", Text, nullable=False, server_default=""),
    Column("target", Text, nullable=False, server_default=""),
    Column("details", JSONB, nullable=False, server_default="{}"),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

outbox = Outbox(metadata)
