"""The schema migrations apply once: a second start finds nothing to do."""

from __future__ import annotations

from printcloud.core.db.migrations import migrate
from printcloud.jobs.app import CORE_MIGRATIONS, JOBS_MIGRATIONS
from printcloud.jobs.persistence.tables import SCHEMA


async def test_migrating_again_applies_nothing(database_url: str) -> None:
    assert await migrate(database_url, SCHEMA, CORE_MIGRATIONS) == []
    assert await migrate(database_url, SCHEMA, JOBS_MIGRATIONS) == []
