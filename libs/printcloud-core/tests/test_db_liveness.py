"""Pooled connections are checked as they leave the pool: a dead one is replaced before a request
uses it, and a live one that was just used costs no ping."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text

from printcloud.core.db.database import Database, create_engine
from printcloud.core.db.url import connect

DEADLINE_SECONDS = 10.0


class Pings:
    """Counts the dialect's pings (SQLAlchemy's pre-ping goes through the same method), and can fail them."""

    def __init__(self, db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
        dialect = db.engine.sync_engine.dialect
        self.count = 0
        self.fail = False
        real = dialect.do_ping

        def counted(dbapi_connection: Any) -> bool:
            self.count += 1
            if self.fail:
                raise ConnectionError("no answer")
            return real(dbapi_connection)

        monkeypatch.setattr(dialect, "do_ping", counted)


def _database(database_url: str, idle_ping_seconds: float) -> Database:
    return Database(create_engine(database_url, max_connections=1, idle_ping_seconds=idle_ping_seconds))


@pytest.fixture
async def busy_db(database_url: str) -> AsyncIterator[Database]:
    """A pool whose connections are never idle long enough to be pinged."""
    database = _database(database_url, idle_ping_seconds=3600)
    yield database
    await database.close()


@pytest.fixture
async def idle_db(database_url: str) -> AsyncIterator[Database]:
    """A pool whose every returned connection counts as idle."""
    database = _database(database_url, idle_ping_seconds=0)
    yield database
    await database.close()


async def _backend_pid(db: Database) -> int:
    async with db.read() as session:
        return int((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + DEADLINE_SECONDS
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def test_a_recently_used_connection_is_handed_out_without_a_ping(
    busy_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = Pings(busy_db, monkeypatch)
    first = await _backend_pid(busy_db)
    assert await _backend_pid(busy_db) == first, "the pool's one connection again"
    async with busy_db.transaction() as session:
        await session.execute(text("SELECT 1"))
    assert pings.count == 0


async def test_a_connection_whose_server_end_closed_is_replaced_before_use(
    busy_db: Database, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a PostgreSQL restart does to every pooled connection, done to one: its backend ends."""
    pings = Pings(busy_db, monkeypatch)
    async with busy_db.read() as session:
        pid = int((await session.execute(text("SELECT pg_backend_pid()"))).scalar_one())
        driver = (await (await session.connection()).get_raw_connection()).driver_connection
    assert isinstance(driver, asyncpg.Connection)
    admin = await connect(database_url)
    try:
        # With a timeout, pg_terminate_backend returns once the backend has exited.
        assert await admin.fetchval("SELECT pg_terminate_backend($1, 5000)", pid)
    finally:
        await admin.close()
    await _until(driver.is_closed, "the driver to see the server end close")
    assert await _backend_pid(busy_db) != pid
    async with busy_db.transaction() as session:
        await session.execute(text("SELECT 1"))
    assert pings.count == 0, "a closed connection is known without asking the server"


async def test_an_idle_connection_is_pinged_and_kept_when_it_answers(
    idle_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings = Pings(idle_db, monkeypatch)
    first = await _backend_pid(idle_db)
    assert await _backend_pid(idle_db) == first
    assert pings.count == 1, "a new connection is not pinged; one returned to the pool is, once idle"


async def test_an_idle_connection_that_does_not_answer_a_ping_is_replaced(
    idle_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server end gone without a word (a dropped flow) is found only by asking."""
    pings = Pings(idle_db, monkeypatch)
    first = await _backend_pid(idle_db)
    pings.fail = True
    assert await _backend_pid(idle_db) != first
    assert pings.count == 1, "the replacement is new, so not pinged"
