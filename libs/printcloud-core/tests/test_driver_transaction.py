"""Driver transactions and compiled writes against a real PostgreSQL: what the block writes commits
with it or not at all, after-commit work runs only once it committed, statements are traced
without their values, and a connection that broke or was left inside a transaction never goes
back to the pool."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from opentelemetry.trace import SpanKind
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    delete,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.database import Database, create_engine
from printcloud.core.db.url import connect
from printcloud.core.ids import uuid7
from printcloud.core.kafka.bus import is_transient
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.outbox import Outbox, outbox_row
from printcloud.core.telemetry.request_ids import request_id_var
from tests.support.spans import RecordedSpans

SCHEMA = "driver_transaction_test"

_metadata = MetaData(schema=SCHEMA)
items = Table(
    "items",
    _metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("owner", String, nullable=False),
    Column("facts", JSONB),
    Column("count", Integer, nullable=False),
)
_add = CompiledWrite.of(
    insert(items).values({name: bindparam(name) for name in ("id", "owner", "facts", "count")}).returning(items.c.id)
)
_add_one = CompiledWrite.of(
    insert(items).values(
        id=bindparam("id"), owner=bindparam("owner"), facts=bindparam("facts"), count=bindparam("count")
    )
)
_bump = CompiledWrite.of(
    update(items).where(items.c.owner == bindparam("owner")).values(count=items.c.count + literal_column("1"))
)
_of_owner = CompiledRead.of(select(items).where(items.c.owner == bindparam("owner")).order_by(items.c.id))
_locked = CompiledRead.of(select(items.c.count).where(items.c.id == bindparam("id")).with_for_update())


async def _create_items(db: Database) -> None:
    async with db.transaction() as session:
        await session.run_sync(lambda sync: _metadata.create_all(sync.connection(), checkfirst=True))


@pytest.fixture
async def one_connection(database_url: str, db: Database) -> AsyncIterator[Database]:
    """A pool of one connection, so the next transaction gets the connection the last one left,
    unless it was discarded."""
    await _create_items(db)
    database = Database(create_engine(database_url, max_connections=1))
    yield database
    await database.close()


def _owner() -> str:
    return f"owner-{secrets.token_hex(4)}"


async def _owned(db: Database, owner: str) -> list[Any]:
    return await db.fetch(_of_owner, owner=owner)


async def test_what_a_transaction_writes_commits_with_it(db: Database) -> None:
    await _create_items(db)
    owner, first, second = _owner(), uuid7(), uuid7()
    async with db.driver_transaction() as transaction:
        returned = await transaction.fetchrow(_add, id=first, owner=owner, facts={"papers": ["A4"]}, count=1)
        assert returned is not None and returned.id == first
        await transaction.executemany(_add_one, [{"id": second, "owner": owner, "facts": None, "count": 2}])
        assert await transaction.execute(_bump, owner=owner) == 2
        assert [row.count for row in await transaction.fetch(_of_owner, owner=owner)] == [2, 3]
        assert await _owned(db, owner) == [], "nothing is seen outside before the commit"
    rows = await _owned(db, owner)
    assert [(row.id, row.facts, row.count) for row in rows] == [(first, {"papers": ["A4"]}, 2), (second, None, 3)]


async def test_a_transaction_that_raises_writes_nothing_and_runs_no_after_commit_work(db: Database) -> None:
    await _create_items(db)
    owner = _owner()
    done: list[str] = []
    with pytest.raises(RuntimeError):
        async with db.driver_transaction() as transaction:
            await transaction.execute(_add_one, id=uuid7(), owner=owner, facts={}, count=1)
            transaction.after_commit(lambda: done.append("rolled back"))
            raise RuntimeError("something after the write fails")
    assert await _owned(db, owner) == []
    assert done == []
    async with db.driver_transaction() as transaction:
        await transaction.execute(_add_one, id=uuid7(), owner=owner, facts={}, count=1)
        transaction.after_commit(lambda: done.append("committed"))
        assert done == [], "not before the commit"
    assert done == ["committed"]
    assert len(await _owned(db, owner)) == 1


async def test_a_failed_statement_rolls_the_transaction_back(db: Database) -> None:
    await _create_items(db)
    owner, item_id = _owner(), uuid7()
    with pytest.raises(asyncpg.UniqueViolationError):
        async with db.driver_transaction() as transaction:
            await transaction.execute(_add_one, id=item_id, owner=owner, facts={}, count=1)
            await transaction.execute(_add_one, id=item_id, owner=owner, facts={}, count=1)
    assert await _owned(db, owner) == []


async def test_queued_changes_go_in_order_one_round_trip_a_run_before_what_follows(
    db: Database, spans: RecordedSpans
) -> None:
    await _create_items(db)
    earlier = len(spans.all())
    owner, ids = _owner(), [uuid7() for _ in range(3)]
    async with db.driver_transaction() as transaction:
        for n, item_id in enumerate(ids):
            transaction.queue(_add_one, id=item_id, owner=owner, facts=None, count=n)
        transaction.queue(_bump, owner=owner)
        assert await _owned(db, owner) == [], "queued, not yet sent"
        # A read of the transaction sends what was queued before it, in order: the bump saw all three.
        assert [row.count for row in await transaction.fetch(_of_owner, owner=owner)] == [1, 2, 3]
        transaction.queue(_bump, owner=owner)
    assert [row.count for row in await _owned(db, owner)] == [2, 3, 4], "the commit sent the last one"
    sent = [span for span in spans.all()[earlier:] if span.kind is SpanKind.CLIENT]
    operations = [(span.attributes or {})["db.operation.name"] for span in sent]
    # The reads outside first and last; the three inserts in one round trip.
    assert operations == ["SELECT", "INSERT", "UPDATE", "SELECT", "UPDATE", "SELECT"]


async def test_queued_changes_are_never_sent_when_the_block_raises(db: Database) -> None:
    await _create_items(db)
    owner = _owner()
    with pytest.raises(RuntimeError):
        async with db.driver_transaction() as transaction:
            transaction.queue(_add_one, id=uuid7(), owner=owner, facts={}, count=1)
            raise RuntimeError("something after the change fails")
    assert await _owned(db, owner) == []


async def test_a_queued_change_that_fails_fails_the_commit_and_writes_nothing(db: Database) -> None:
    await _create_items(db)
    owner, item_id = _owner(), uuid7()
    with pytest.raises(asyncpg.UniqueViolationError):
        async with db.driver_transaction() as transaction:
            await transaction.execute(_add_one, id=uuid7(), owner=owner, facts={}, count=1)
            transaction.queue(_add_one, id=item_id, owner=owner, facts={}, count=1)
            transaction.queue(_add_one, id=item_id, owner=owner, facts={}, count=1)
    assert await _owned(db, owner) == []


async def test_a_locked_row_makes_a_second_transaction_wait_for_the_first(db: Database) -> None:
    await _create_items(db)
    item_id = uuid7()
    async with db.driver_transaction() as transaction:
        await transaction.execute(_add_one, id=item_id, owner=_owner(), facts={}, count=0)
    first_locked, order = asyncio.Event(), []

    async def first() -> None:
        async with db.driver_transaction() as transaction:
            await transaction.fetch(_locked, id=item_id)
            first_locked.set()
            # The second transaction is already waiting on the row when this one ends.
            await _until_waiting_on_a_lock(db)
            order.append("first ends")

    async def second() -> None:
        await first_locked.wait()
        async with db.driver_transaction() as transaction:
            await transaction.fetch(_locked, id=item_id)
            order.append("second locks")

    await asyncio.wait_for(asyncio.gather(first(), second()), timeout=10)
    assert order == ["first ends", "second locks"]


async def _until_waiting_on_a_lock(db: Database) -> None:
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
    )
    for _ in range(1000):
        async with db.read() as session:
            if (await session.execute(waiting)).scalar_one() > 0:
                return
        await asyncio.sleep(0.01)
    raise AssertionError("the second transaction never waited on the lock")


def test_a_compiled_write_takes_every_value_by_name() -> None:
    with pytest.raises(ValueError, match="bindparam"):
        CompiledWrite.of(update(items).values(count=1))
    removal = CompiledWrite.of(delete(items).where(items.c.owner == bindparam("owner")))
    assert removal.parameters == ("owner",)
    with pytest.raises(TypeError, match="owner"):
        removal.arguments({})


async def test_statements_are_traced_without_their_values(db: Database, spans: RecordedSpans) -> None:
    await _create_items(db)
    secret = f"s3cret-{secrets.token_hex(8)}"
    async with db.driver_transaction() as transaction:
        await transaction.execute(_add_one, id=uuid7(), owner=secret, facts={"secret": secret}, count=1)
    with pytest.raises(asyncpg.UniqueViolationError):
        async with db.driver_transaction() as transaction:
            item_id = uuid7()
            await transaction.executemany(_add_one, [{"id": item_id, "owner": secret, "facts": {}, "count": 1}] * 2)
    inserts = [span for span in spans.named("INSERT") if span.kind is SpanKind.CLIENT]
    assert len(inserts) == 2 and f"{SCHEMA}.items" in str((inserts[0].attributes or {})["db.query.text"])
    assert (inserts[1].attributes or {})["error.type"] == "UniqueViolationError"
    assert all(secret not in str(value) for s in spans.all() for value in (s.attributes or {}).values())


async def test_a_connection_whose_backend_ends_mid_transaction_is_discarded(
    one_connection: Database, database_url: str
) -> None:
    """What a PostgreSQL restart does to a transaction in flight: the error is one every consumer
    retries, and the next transaction gets a new connection instead of the dead one."""
    pid_of = CompiledRead.of(select(literal_column("pg_backend_pid()").label("pid")))
    with pytest.raises((asyncpg.PostgresError, asyncpg.InterfaceError, OSError)) as failed:
        async with one_connection.driver_transaction() as transaction:
            pid = (await transaction.fetch(pid_of))[0].pid
            admin = await connect(database_url)
            try:
                assert await admin.fetchval("SELECT pg_terminate_backend($1, 5000)", pid)
            finally:
                await admin.close()
            await transaction.execute(_add_one, id=uuid7(), owner=_owner(), facts={}, count=1)
    assert is_transient(failed.value)
    async with one_connection.driver_transaction() as transaction:
        assert (await transaction.fetch(pid_of))[0].pid != pid


async def test_a_transaction_cancelled_mid_statement_leaves_no_connection_inside_it(
    one_connection: Database,
) -> None:
    """A call's deadline cancels its task wherever it is: the pool's one connection must come back
    outside any transaction, not holding the cancelled one's writes and locks."""
    owner = _owner()
    started = asyncio.Event()

    async def slow() -> None:
        async with one_connection.driver_transaction() as transaction:
            await transaction.execute(_add_one, id=uuid7(), owner=owner, facts={}, count=1)
            started.set()
            await transaction.fetch(CompiledRead.of(select(literal_column("pg_sleep(30)"))))

    task = asyncio.create_task(slow())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    now = CompiledRead.of(select(literal_column("transaction_timestamp()").label("at")))
    async with one_connection.driver_transaction() as transaction:
        await transaction.execute(_add_one, id=uuid7(), owner=_owner(), facts={}, count=1)
        first = (await transaction.fetch(now))[0].at
    async with one_connection.driver_transaction() as transaction:
        assert (await transaction.fetch(now))[0].at > first, "each block is a transaction of its own"
    assert await _owned(one_connection, owner) == []


async def test_the_outbox_rows_of_a_driver_transaction_are_those_of_a_session(db: Database) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))

    def message(n: int) -> Message:
        return Message(type="thing.happened", organization_id=str(uuid.uuid4()), mode="test", data={"n": n})

    token = request_id_var.set("req-driver-outbox")
    try:
        by_session, by_driver = message(1), [message(2), message(3)]
        async with db.transaction() as session:
            await outbox.add(session, "topic-a", "key-1", by_session)
        async with db.driver_transaction() as transaction:
            await outbox.add_all(
                transaction, [outbox_row("topic-b", f"key-{n}", m) for n, m in enumerate(by_driver, start=2)]
            )
    finally:
        request_id_var.reset(token)
    async with db.read() as session:
        rows = (await session.execute(select(outbox.table).order_by(outbox.table.c.id))).all()
    written = {row.id: row for row in rows}
    for n, (sent, topic) in enumerate([(by_session, "topic-a"), *((m, "topic-b") for m in by_driver)], start=1):
        row = written[uuid.UUID(sent.id)]
        assert (row.topic, row.key, row.payload) == (topic, f"key-{n}", sent.to_json())
        assert row.headers == written[uuid.UUID(by_session.id)].headers
        assert row.headers["x-request-id"] == "req-driver-outbox"
        assert row.created_at is not None and row.sent_at is None


async def test_a_deadlock_is_transient(database_url: str, db: Database) -> None:
    """Two transactions that lock the same rows in opposite orders: PostgreSQL ends one with a
    deadlock, which passes once tried again, so a consumer retries it instead of setting its
    message aside."""
    await _create_items(db)
    first, second = await connect(database_url), await connect(database_url)
    try:
        for connection in (first, second):
            await connection.execute("SET deadlock_timeout = '50ms'")
        await first.execute("CREATE TABLE IF NOT EXISTS driver_transaction_test.pair (id int PRIMARY KEY)")
        await first.execute("INSERT INTO driver_transaction_test.pair VALUES (1), (2) ON CONFLICT DO NOTHING")

        async def lock(
            connection: asyncpg.Connection, ids: tuple[int, int], locked: asyncio.Event, go: asyncio.Event
        ) -> None:
            async with connection.transaction():
                await connection.execute("SELECT 1 FROM driver_transaction_test.pair WHERE id = $1 FOR UPDATE", ids[0])
                locked.set()
                await go.wait()
                await connection.execute("SELECT 1 FROM driver_transaction_test.pair WHERE id = $1 FOR UPDATE", ids[1])

        first_locked, second_locked = asyncio.Event(), asyncio.Event()
        both = asyncio.Event()
        tasks = [
            asyncio.create_task(lock(first, (1, 2), first_locked, both)),
            asyncio.create_task(lock(second, (2, 1), second_locked, both)),
        ]
        await asyncio.wait_for(asyncio.gather(first_locked.wait(), second_locked.wait()), 10)
        both.set()
        outcomes = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)
        (deadlock,) = [outcome for outcome in outcomes if isinstance(outcome, BaseException)]
        assert isinstance(deadlock, asyncpg.DeadlockDetectedError)
        assert is_transient(deadlock)
    finally:
        await first.close()
        await second.close()
