"""Database engine and sessions. Each service owns one PostgreSQL schema and touches no other."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeAlias, cast

from sqlalchemy import URL, CursorResult, Row, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.sql.dml import UpdateBase

from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.driver_transaction import DriverTransaction, driver_transaction, pooled_driver
from printcloud.core.db.liveness import IDLE_PING_SECONDS, check_on_checkout
from printcloud.core.db.statement_telemetry import POOLS, trace_statements, traced
from printcloud.core.db.url import DatabaseUrl

# A row of whatever columns a query selects, or of a Bundle of a table's columns; its fields are read by name.
AnyRow: TypeAlias = "Row[*tuple[Any, ...]]"

RECYCLE_SECONDS = 1800


def create_engine(
    database_url: str,
    *,
    max_connections: int = 10,
    application_name: str = "printcloud",
    idle_ping_seconds: float = IDLE_PING_SECONDS,
) -> AsyncEngine:
    """The engine of one service, its statements traced and its pool watched (`core.db.statement_telemetry`),
    its connections checked as they leave the pool (`core.db.liveness`).

    The pool's connections are made as every raw one is, by `DatabaseUrl.connect` from the URL the
    operator wrote (libpq's TLS parameters included); SQLAlchemy's URL only names the dialect and
    the database, so the engine holds no password either."""
    target = DatabaseUrl.parse(database_url)
    server_settings = {"application_name": application_name}

    async def connect() -> Any:
        return await target.connect(server_settings=server_settings)

    engine = create_async_engine(
        URL.create("postgresql+asyncpg", database=target.database or None),
        async_creator=connect,
        # Every connection the pool opens stays open for the next (until it is recycled): with
        # overflow connections beyond a smaller kept core, each burst past the core opened and
        # closed connections, and under bursty load (an agents' reconnect storm) opening them took a
        # large share of a service's CPU (docs/performance.md, "2026-11-25 at night"). The most open
        # is unchanged.
        pool_size=max_connections,
        max_overflow=0,
        # Connections are renewed now and then, so that no server-side state or memory grows for good.
        pool_recycle=RECYCLE_SECONDS,
        # Errors render their statement; their parameters (webhook secrets, content-URL passwords)
        # would follow it into every log line that records the error.
        hide_parameters=True,
    )
    check_on_checkout(engine.sync_engine, idle_ping_seconds)
    trace_statements(engine.sync_engine, target.database or "postgres")
    POOLS.watch(engine.sync_engine.pool, application_name, limit=max_connections)
    return engine


class Database:
    """An engine plus two session factories: `transaction()` is the unit of work for one change,
    `read()` is for reading only; and the driver's own transactions (`driver_transaction()`) for
    the hottest changes."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self._database_name = engine.url.database or "postgres"
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        # The same pool; on its connections the driver sends no BEGIN and no ROLLBACK.
        self._autocommit_sessions = async_sessionmaker(
            engine.execution_options(isolation_level="AUTOCOMMIT"), expire_on_commit=False
        )

    @classmethod
    def connect(cls, database_url: str, *, application_name: str = "printcloud") -> Database:
        return cls(create_engine(database_url, application_name=application_name))

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session, session.begin():
            yield session

    def driver_transaction(self) -> AbstractAsyncContextManager[DriverTransaction]:
        """A transaction of compiled statements sent by the driver itself (`core.db.driver_transaction`),
        on a connection of the same pool."""
        return driver_transaction(self.engine, self._database_name)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncSession]:
        """A session for SELECTs only, outside any transaction: a one-statement read costs one
        round trip, not three (BEGIN, the statement, ROLLBACK).

        Each statement sees the database as of its own start. That is all a read transaction gave
        at PostgreSQL's READ COMMITTED, the level every session here runs at, so a read of several
        statements (a parent checked, then its children listed) is neither more nor less consistent
        than before. A read that locks rows (FOR UPDATE) belongs in `transaction()`. One whose
        statements must see one moment is best written as one statement (as the event feed's
        cut-off and the pages of `core.db.paging` are), else it needs a REPEATABLE READ transaction;
        no caller needs that today."""
        async with self._autocommit_sessions() as session:
            yield session

    @asynccontextmanager
    async def one_statement(self) -> AsyncIterator[AsyncSession]:
        """A session for a change made by one statement, which is a transaction by itself: one round
        trip, not three. A claim (an UPDATE ... RETURNING over rows it locks with SKIP LOCKED) is
        one. A change of several statements that must stand or fall together needs `transaction()`."""
        async with self._autocommit_sessions() as session:
            yield session

    async def fetch(self, read: CompiledRead, **values: Any) -> list[Fields]:
        """The rows of a compiled read (`core.db.compiled_reads`), sent by the driver itself on a
        connection of the pool, outside any transaction as `read()` is, and traced as every
        statement is. A read whose CTEs change rows is thereby a transaction by itself, as a
        statement of `one_statement()` is."""
        arguments = read.arguments(values)
        async with pooled_driver(self.engine) as pooled:
            rows: list[Fields] = await traced(
                self._database_name, read.sql, pooled.driver.fetch(read.sql, *arguments, record_class=Fields)
            )
            return rows

    async def fetch_one(self, read: CompiledRead, **values: Any) -> Fields | None:
        """The one row of a compiled read by key, or None when there is none."""
        rows = await self.fetch(read, **values)
        return rows[0] if rows else None

    async def answers(self) -> bool:
        """Whether the database answers a trivial query now: the readiness check of every service."""
        try:
            async with self.read() as session:
                await session.execute(text("SELECT 1"))
        except Exception:  # noqa: BLE001 - any failure means "not ready", reported by /readyz
            return False
        return True

    async def close(self) -> None:
        await self.engine.dispose()


async def rows_affected(session: AsyncSession, statement: UpdateBase) -> int:
    """How many rows an INSERT, UPDATE or DELETE without RETURNING changed. A session types every
    result as an ORM one; a statement's like these is the driver's cursor result, which counts them."""
    result = await session.execute(statement)
    return cast("CursorResult[Any]", result).rowcount
