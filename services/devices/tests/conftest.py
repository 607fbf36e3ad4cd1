"""A throw-away database on the real PostgreSQL, migrated like the service does at start-up."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import select

from printcloud.core.db.database import Database
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.devices.app import migrate_schema
from printcloud.devices.persistence.tables import outbox
from tests.support.databases import database_fixtures

database_url, db = database_fixtures("printcloud_devices_test", migrate_schema)


@pytest.fixture
def scope() -> Scope:
    """A fresh organization per test keeps tests independent on the shared database."""
    return Scope(uuid7(), "live")


EventReader = Callable[[uuid.UUID], Awaitable[list[tuple[str, dict[str, Any]]]]]


@pytest.fixture
def events_of(db: Database) -> EventReader:
    """Reads the (type, data) of the domain events written to the outbox for one resource, in order
    (agent commands share the computer's key)."""

    async def read(resource_id: uuid.UUID) -> list[tuple[str, dict[str, Any]]]:
        async with db.read() as session:
            rows = (
                await session.execute(
                    select(outbox.table.c.payload)
                    .where(outbox.table.c.key == str(resource_id), outbox.table.c.topic == "printcloud.domain-events")
                    .order_by(outbox.table.c.id)
                )
            ).all()
        return [(r.payload["type"], r.payload["data"]) for r in rows]

    return read
