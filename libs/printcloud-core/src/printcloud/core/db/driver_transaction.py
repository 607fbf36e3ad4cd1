"""Speed machinery: a transaction the driver runs by itself (docs/performance.md, "Speed machinery").

The hottest changes (a print job's creation and its state changes) send compiled statements
(`compiled_reads`, `compiled_writes`) on a connection of the service's own pool, in a transaction
that asyncpg runs: no session, no unit of work, no statement built or cache key computed per call.
The connection leaves the pool as a session's does, checked (`core.db.liveness`), and every
statement is traced as a session's are (`core.db.statement_telemetry`). A connection the server
closed under it is discarded rather than returned, as SQLAlchemy discards one that fails so; one
that might still be inside the transaction (an end cut short) is discarded too, so no later user
of the pool finds itself in it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.util import greenlet_spawn

from printcloud.core.db.compiled_statements import CompiledStatement, Fields
from printcloud.core.db.statement_telemetry import traced


class DriverTransaction:
    """The statements of one transaction, and what to do once it has committed."""

    def __init__(self, driver: asyncpg.Connection, database: str) -> None:
        self._driver = driver
        self._database = database
        self._after_commit: list[Callable[[], None]] = []
        self._queued: list[tuple[CompiledStatement, Sequence[Any]]] = []

    def queue(self, statement: CompiledStatement, **values: Any) -> None:
        """A change whose answer no one needs, sent before the transaction's next statement or its
        commit. Changes queued one after another with the same statement go in one round trip
        (asyncpg's `executemany` sends them together and waits once), so a batch of state changes
        costs one round trip, not one a job; changes are sent in the order queued."""
        self._queued.append((statement, statement.arguments(values)))

    async def send_queued(self) -> None:
        """Sends what `queue` holds; every other statement of the transaction, and its commit, calls
        this first, so nothing reads around a queued change."""
        while self._queued:
            statement = self._queued[0][0]
            same = next((n for n, (other, _) in enumerate(self._queued) if other is not statement), len(self._queued))
            run, self._queued = self._queued[:same], self._queued[same:]
            if len(run) == 1:
                await traced(self._database, statement.sql, self._driver.execute(statement.sql, *run[0][1]))
            else:
                await traced(
                    self._database,
                    statement.sql,
                    self._driver.executemany(statement.sql, [arguments for _, arguments in run]),
                )

    async def fetch(self, statement: CompiledStatement, **values: Any) -> list[Fields]:
        """The rows of a SELECT, or of a change's RETURNING."""
        await self.send_queued()
        rows: list[Fields] = await traced(
            self._database,
            statement.sql,
            self._driver.fetch(statement.sql, *statement.arguments(values), record_class=Fields),
        )
        return rows

    async def fetchrow(self, statement: CompiledStatement, **values: Any) -> Fields | None:
        """The first row of a SELECT or a RETURNING, or None when there is none."""
        await self.send_queued()
        row: Fields | None = await traced(
            self._database,
            statement.sql,
            self._driver.fetchrow(statement.sql, *statement.arguments(values), record_class=Fields),
        )
        return row

    async def execute(self, statement: CompiledStatement, **values: Any) -> int:
        """Runs a change and returns how many rows it changed (PostgreSQL's command tag)."""
        await self.send_queued()
        tag: str = await traced(
            self._database, statement.sql, self._driver.execute(statement.sql, *statement.arguments(values))
        )
        return _rows_of(tag)

    async def executemany(self, statement: CompiledStatement, rows: Iterable[Mapping[str, Any]]) -> None:
        """Runs a change once for each of `rows`, sent together: one round trip, not one a row."""
        arguments = [statement.arguments(dict(row)) for row in rows]
        await self.send_queued()
        if arguments:
            await traced(self._database, statement.sql, self._driver.executemany(statement.sql, arguments))

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Calls `callback` once the transaction has committed; never when it rolls back."""
        self._after_commit.append(callback)

    def run_after_commit(self) -> None:
        """What `after_commit` asked for; called by `driver_transaction` alone, once committed."""
        for callback in self._after_commit:
            callback()


def _rows_of(tag: str) -> int:
    """The count at the end of a command tag (`UPDATE 1`, `INSERT 0 3`), 0 for one without."""
    last = tag.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


@asynccontextmanager
async def pooled_driver(engine: AsyncEngine) -> AsyncIterator[PooledDriver]:
    """The driver's connection of a connection checked out of `engine`'s pool, returned when the
    block ends, or discarded when the block asks for it (`PooledDriver.discard`) or the server
    closed it meanwhile. The pool's own record of the connection is taken without the engine's
    `Connection` around it: the checkout and the checks of `core.db.liveness` are the same, at a
    third of the CPU (docs/performance.md, "Speed machinery")."""
    record = await engine.raw_connection()
    driver = record.driver_connection
    assert isinstance(driver, asyncpg.Connection), "a connection checked out of the pool has its driver's"
    pooled = PooledDriver(driver)
    try:
        yield pooled
    finally:
        # Returned or discarded through the pool, which awaits the driver as the engine does.
        if pooled.discarded or driver.is_closed():
            await greenlet_spawn(record.invalidate)
        else:
            await greenlet_spawn(record.close)


class PooledDriver:
    def __init__(self, driver: asyncpg.Connection) -> None:
        self.driver = driver
        self.discarded = False

    def discard(self) -> None:
        """Closes the connection instead of returning it to the pool."""
        self.discarded = True


@asynccontextmanager
async def driver_transaction(engine: AsyncEngine, database: str) -> AsyncIterator[DriverTransaction]:
    """A transaction on a connection of `engine`'s pool, committed when the block ends, rolled back
    when it raises. Its statements run at the pool's isolation level, READ COMMITTED."""
    async with pooled_driver(engine) as pooled:
        driver = pooled.driver
        transaction = DriverTransaction(driver, database)
        ended = False
        try:
            await driver.execute("BEGIN")
            yield transaction
            await transaction.send_queued()
            await driver.execute("COMMIT")
            ended = True
        finally:
            if not ended:
                ended = await _rolled_back(driver)
            if not ended:
                pooled.discard()
    transaction.run_after_commit()


async def _rolled_back(driver: asyncpg.Connection) -> bool:
    """Whether the connection is out of the transaction: it never began, it ended in a failed
    COMMIT (which ends it), or a ROLLBACK ended it now."""
    if driver.is_closed():
        return False
    if not driver.is_in_transaction():
        return True
    try:
        await driver.execute("ROLLBACK")
    except BaseException:  # noqa: BLE001 - the connection is discarded instead, and the first error stands
        return False
    return True
