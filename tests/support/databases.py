"""A throwaway database on the machine's PostgreSQL, migrated by the service under test: the one
way every service's tests get theirs.

    database_url, db = database_fixtures("printcloud_devices_test", migrate_schema)

in a package's conftest gives that package its own session-scoped `database_url` and `db` (a
fixture shared from one place would be one database for every package of the run).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from printcloud.core.db.database import Database
from printcloud.devstack.infrastructure import temporary_database


def database_fixtures(name: str, migrate: Callable[[str], Awaitable[None]]) -> tuple[Any, Any]:
    @pytest.fixture(scope="session")
    async def database_url() -> AsyncIterator[str]:
        async with temporary_database(name) as url:
            await migrate(url)
            yield url

    @pytest.fixture(scope="session")
    async def db(database_url: str) -> AsyncIterator[Database]:
        database = Database.connect(database_url)
        yield database
        await database.close()

    return database_url, db
