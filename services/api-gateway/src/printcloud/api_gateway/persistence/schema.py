"""Brings the gateway schema up to date; the service and the operator CLI both call it."""

from __future__ import annotations

from printcloud.api_gateway.persistence.tables import SCHEMA
from printcloud.core.db.migrations import migrate

MIGRATION_PACKAGES = ("printcloud.core.kafka.sql", "printcloud.api_gateway.persistence.migrations")


async def migrate_gateway(database_url: str) -> None:
    # The core outbox goes first: the gateway's own migrations may build on it.
    for package in MIGRATION_PACKAGES:
        await migrate(database_url, SCHEMA, package)
