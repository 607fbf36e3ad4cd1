"""Driver transactions against a real PostgreSQL: statements compiled once, sent by asyncpg in one
transaction that commits or rolls back as a whole, traced without their values, and a connection
never handed back to the pool in the middle of one."""

from __future__ import annotations

import asyncio
import secrets
import uuid

import pytest
from opentelemetry.trace import SpanKind
from sqlalchemy import Column, MetaData, String, Table, bindparam, func, select, text
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.dialects.postgresql import insert as pg_insert

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.database import Database, create_engine
from printcloud.core.db.driver_transaction import driver_transaction
from printcloud.core.ids import uuid7
from tests.support.spans import RecordedSpans

SCHEMA = "driver_transaction_test"

_metadata = MetaData(schema=SCHEMA)
notes = Table(
    "notes",
    _metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("owner", String, nullable=False),
)
# A change compiles as a compiled read when it is a SELECT over the statement in its WITH clause.
_added = pg_insert(notes).values(id=bindparam("id"), owner=bindparam("owner")).returning(notes.c.id).cte("added")
_ADD = CompiledRead.of(select(_added.c.id))
_COUNT = CompiledRead.of(select(func.count()).select_from(notes).where(notes.c.owner == bindparam("owner")))


async def _create_table(db: Database) -> None:
    async with db.transaction() as session:
        await session.run_sync(lambda sync: _metadata.create_all(sync.connection(), checkfirst=True))


async def _count(db: Database, owner: str) -> int:
    [row] = await db.fetch(_COUNT, owner=owner)
    return int(row.count_1)


async def test_statements_of_a_driver_transaction_commit_together_or_not_at_all(db: Database) -> None:
    await _create_table(db)
    async with driver_transaction(db) as tx:
        first = await tx.fetch(_ADD, id=uuid7(), owner="kept")
        await tx.fetch(_ADD, id=uuid7(), owner="kept")
        [seen] = await tx.fetch(_COUNT, owner="kept")
        assert seen.count_1 == 2, "a statement sees the rows of the ones before it"
        assert await _count(db, "kept") == 0, "nothing shows outside before the commit"
    assert isinstance(first[0].id, uuid.UUID)
    assert await _count(db, "kept") == 2

    duplicate = uuid7()
    with pytest.raises(Exception, match="duplicate key"):
        async with driver_transaction(db) as tx:
            await tx.fetch(_ADD, id=duplicate, owner="dropped")
            await tx.fetch(_ADD, id=duplicate, owner="dropped")
    assert await _count(db, "dropped") == 0


async def test_a_driver_transaction_is_traced_without_its_values(db: Database, spans: RecordedSpans) -> None:
    await _create_table(db)
    secret = f"s3cret-{secrets.token_hex(8)}"
    async with driver_transaction(db) as tx:
        await tx.fetch(_ADD, id=uuid7(), owner=secret)
    traced = [span for span in spans.named("WITH") if span.kind is SpanKind.CLIENT]
    assert traced and f"{SCHEMA}.notes" in str((traced[-1].attributes or {})["db.query.text"])
    assert all(secret not in str(value) for s in spans.all() for value in (s.attributes or {}).values())

    with pytest.raises(Exception, match="duplicate key"):
        async with driver_transaction(db) as tx:
            duplicate = uuid7()
            await tx.fetch(_ADD, id=duplicate, owner="a")
            await tx.fetch(_ADD, id=duplicate, owner="a")
    failed = [span for span in spans.named("WITH") if not span.status.is_ok]
    assert failed and (failed[-1].attributes or {})["error.type"] == "UniqueViolationError"


async def test_a_cancelled_driver_transaction_leaves_no_open_transaction_behind(
    db: Database, database_url: str
) -> None:
    await _create_table(db)
    application = f"driver-tx-{secrets.token_hex(4)}"
    db = Database(create_engine(database_url, max_connections=1, application_name=application))
    try:
        started = asyncio.Event()

        async def stuck() -> None:
            async with driver_transaction(db) as tx:
                await tx.fetch(_ADD, id=uuid7(), owner="cancelled")
                started.set()
                await tx.fetch(CompiledRead.of(select(func.pg_sleep(bindparam("seconds")))), seconds=30.0)

        task = asyncio.create_task(stuck())
        await started.wait()
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # The pool's one connection (or the one replacing it) is out of any transaction.
        assert await _count(db, "cancelled") == 0
        async with db.read() as session:
            open_ones = await session.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = :name"
                    " AND state LIKE 'idle in transaction%'"
                ),
                {"name": application},
            )
        assert open_ones == 0
    finally:
        await db.close()
