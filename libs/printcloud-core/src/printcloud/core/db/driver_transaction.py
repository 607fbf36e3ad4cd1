"""Speed machinery: a transaction of a few statements sent by the driver itself.

A hot write of several statements (a consumer's batch) written with SQLAlchemy Core and compiled
once (`core.db.compiled_reads.CompiledRead`; a change is compiled as one when it is a SELECT over
the data-modifying statements of its WITH clause), then sent by asyncpg inside one transaction on a
connection checked out of the service's own pool: no statement built, no cache key computed and no
ORM result processing per statement. Each statement is traced as every other one is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg

from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.database import Database
from printcloud.core.db.statement_telemetry import end_failed_statement_span, start_statement_span


class DriverTransaction:
    """Compiled statements sent on one connection inside one transaction."""

    def __init__(self, connection: asyncpg.Connection, database_name: str) -> None:
        self._connection = connection
        self._database_name = database_name

    async def fetch(self, statement: CompiledRead, **values: Any) -> list[Fields]:
        arguments = statement.arguments(values)
        span = start_statement_span(self._database_name, statement.sql)
        try:
            rows: list[Fields] = await self._connection.fetch(statement.sql, *arguments, record_class=Fields)
        except BaseException as error:
            end_failed_statement_span(span, error)
            raise
        span.end()
        return rows


@asynccontextmanager
async def driver_transaction(db: Database) -> AsyncIterator[DriverTransaction]:
    """A transaction on a connection of `db`'s pool, committed when the block ends and rolled back
    when it raises."""
    async with db.engine.connect() as connection:
        driver = (await connection.get_raw_connection()).driver_connection
        assert driver is not None, "a connection checked out of the pool has its driver's"
        try:
            async with driver.transaction():
                yield DriverTransaction(driver, db.engine.url.database or "postgres")
        finally:
            # SQLAlchemy ends only the transactions it began: a connection whose rollback was cut
            # short (a cancellation) must not go back to the pool in the middle of this one.
            if driver.is_in_transaction():
                await connection.invalidate()
