"""Transactional outbox: `add()` inside the state change's transaction (`add_all()` inside a
driver transaction, `core.db.driver_transaction`), `OutboxRelay` publishes.

A crash between publishing and marking sent publishes the row again on the next pass: consumers
see a duplicate, never a gap. One relay per schema publishes at a time, so rows leave in id order
even with several replicas: the one holding a session advisory lock on a connection of its own,
outside the pool. The relay's statements run on that same connection, each a transaction by
itself: a pass sends what the last statement read, then marks it sent and reads the next batch in
one statement, so a steady stream costs one round trip a batch; no transaction or pooled
connection waits on the broker, however slow it is. A broker that lost
its log gets every row it had been sent again (see `printcloud.core.kafka.broker_epoch`), for as long
as rows are retained: before anything newer, and each message names the life it was sent to, so
that consumers skip what reached a new life before the relay knew of it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import asyncpg
from prometheus_client import Counter, Gauge
from sqlalchemy import (
    BindParameter,
    Column,
    DateTime,
    Insert,
    MetaData,
    Table,
    Text,
    bindparam,
    cast,
    func,
    not_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.database import Database, rows_affected
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.db.statement_telemetry import traced
from printcloud.core.db.url import connect
from printcloud.core.kafka.broker_epoch import EPOCH_HEADER, BrokerEpoch
from printcloud.core.kafka.bus import Producer
from printcloud.core.kafka.envelope import TYPE_HEADER, Message
from printcloud.core.periodic import run_periodically, woken_or_after
from printcloud.core.telemetry.traces import carrier_headers
from printcloud.core.timeutil import utcnow

log = logging.getLogger(__name__)

# Sent rows are kept this long: what a broker that lost its log can be sent again.
SENT_RETENTION = timedelta(hours=24)

OUTBOX_PUBLISHED = Counter("printcloud_outbox_published_total", "Outbox rows published to Kafka", ["schema", "topic"])
# Measured by every replica's relay, so they agree: alert on max by (schema).
OUTBOX_BACKLOG = Gauge("printcloud_outbox_backlog_rows", "Outbox rows not yet published", ["schema"])
OUTBOX_OLDEST_AGE = Gauge(
    "printcloud_outbox_oldest_unsent_age_seconds", "Age of the oldest outbox row not yet published", ["schema"]
)
BACKLOG_REPORT_SECONDS = 15.0


def outbox_table(metadata: MetaData) -> Table:
    return Table(
        "outbox",
        metadata,
        Column("id", UUID(as_uuid=True), primary_key=True),
        Column("topic", Text, nullable=False),
        Column("key", Text, nullable=False),
        Column("payload", JSONB, nullable=False),
        Column("headers", JSONB, nullable=False),
        Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
        Column("sent_at", DateTime(timezone=True)),
        Column("sent_epoch", Text),
    )


# The columns a new row is given; the rest have defaults.
_ROW_COLUMNS = ("id", "topic", "key", "payload", "headers")


def outbox_row(topic: str, key: str, message: Message) -> dict[str, Any]:
    """The row that sends `message` to `topic`, with the current trace context and request id."""
    return {
        "id": uuid.UUID(message.id),
        "topic": topic,
        "key": key,
        "payload": message.to_json(),
        "headers": carrier_headers(),
    }


class Outbox:
    def __init__(self, metadata: MetaData) -> None:
        self.table = outbox_table(metadata)
        self.schema = metadata.schema or "public"
        self._insert_many = CompiledWrite.of(_insert_many(self.table))

    async def add(self, session: AsyncSession, topic: str, key: str, message: Message) -> None:
        await session.execute(self.table.insert().values(**outbox_row(topic, key, message)))

    async def add_all(self, transaction: DriverTransaction, rows: Sequence[dict[str, Any]]) -> None:
        """The driver's form of `add`: the rows of `outbox_row` in one statement, however many."""
        if not rows:
            return
        await transaction.execute(
            self._insert_many, **{f"row_{column}": [row[column] for row in rows] for column in _ROW_COLUMNS}
        )

    def insert_of(self, count: int) -> Insert:
        """An INSERT of `count` rows taking their values (`values_of`) as bindparams, a CTE of a
        service's own compiled change, so one statement writes both: a change of a few events, as
        many as its kind makes. Any number of rows goes by `add_all`."""
        # Typed, because only a first row's values take their columns' types (JSON is sent as text).
        return self.table.insert().values(
            [
                {column: bindparam(_parameter(n, column), type_=self.table.c[column].type) for column in _ROW_COLUMNS}
                for n in range(count)
            ]
        )

    @staticmethod
    def values_of(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The bindparams of `insert_of(len(rows))` for `rows` (each from `outbox_row`)."""
        return {_parameter(n, column): row[column] for n, row in enumerate(rows) for column in _ROW_COLUMNS}


def _parameter(n: int, column: str) -> str:
    return f"outbox_{n}_{column}"


def _insert_many(table: Table) -> Insert:
    """An INSERT of any number of rows, each column's values one array: one statement, prepared
    once, whatever the count."""
    arrays = (
        func.unnest(*(bindparam(f"row_{column}", type_=ARRAY(table.c[column].type)) for column in _ROW_COLUMNS))
        .table_valued(*_ROW_COLUMNS)
        .render_derived()
    )
    return table.insert().from_select(list(_ROW_COLUMNS), select(*(arrays.c[column] for column in _ROW_COLUMNS)))


class OutboxRelay:
    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        producer: Producer,
        database_url: str,
        epoch: BrokerEpoch,
        *,
        batch_size: int = 200,
        idle_poll_seconds: float = 1.0,
        retention: timedelta = SENT_RETENTION,
    ) -> None:
        self.db = db
        self.outbox = outbox
        self.producer = producer
        self.database_url = database_url
        self.epoch = epoch
        # The epoch whose earlier lives' rows this relay, as the publisher, last put back to be sent.
        self._resent_before: str | None = None
        self.batch_size = batch_size
        self.idle_poll_seconds = idle_poll_seconds
        self.retention = retention
        self._wake = asyncio.Event()
        epoch.on_change(lambda _: self._wake.set())
        # Set while notifications are being received; lets tests wait for it instead of sleeping.
        self.listening = asyncio.Event()
        self._lock_key = int.from_bytes(
            hashlib.sha256(f"outbox:{outbox.schema}".encode()).digest()[:8], "big", signed=True
        )
        self._leader: asyncpg.Connection | None = None
        self._leading = False
        self._statements = _RelayStatements(outbox.table)
        self._database = db.engine.url.database or "postgres"
        # The unsent rows read by the statement that marked the last batch: the next pass sends them
        # without reading again. Empty, it is read again: rows may have come since.
        self._read_ahead: list[Fields] = []

    async def _leads(self) -> bool:
        """Whether this relay is the schema's publisher: it holds the lock while its connection
        lives, and a replica that dies or loses its connection releases it to the next."""
        try:
            if self._leader is None or self._leader.is_closed():
                self._leader = await connect(self.database_url)
                self._leading = False
            # The lock lives as long as this session, and every statement of a pass runs on it: a
            # session that died fails the pass and gives the lock up.
            if not self._leading:
                self._leading = bool(await self._leader.fetchval("SELECT pg_try_advisory_lock($1)", self._lock_key))
                if self._leading:
                    # The publisher before may have sent rows to a life it had not noticed was over.
                    self._resent_before = None
        except BaseException:
            await self.close()
            raise
        return self._leading

    async def close(self) -> None:
        """Gives the publisher's lock up (with its connection) to the other replicas."""
        leader, self._leader, self._leading = self._leader, None, False
        self._read_ahead = []
        if leader is not None:
            await leader.close()

    async def relay_once(self) -> int:
        if not await self._leads():
            return 0
        if self.epoch.current != self._resent_before:
            await self.resend_earlier_lives()
        # The life the rows are said to go to (and recorded as sent in): one whose earlier lives'
        # rows are back in line before them. `epoch.current` may have moved on since; if so, the
        # rows are put back and sent again after the earlier ones, and consumers skip these.
        life = self._resent_before
        if life is None:
            return 0  # an epoch never checked: no life to send to
        rows, self._read_ahead = self._read_ahead, []
        if not rows:
            rows = await self._fetch(self._statements.unsent, batch_size=self.batch_size)
        if not rows:
            return 0
        messages = [(r, Message.from_json(json.loads(r.payload))) for r in rows]
        await self.producer.send_many(
            [
                (
                    r.topic,
                    r.key,
                    message.encode(),
                    {**json.loads(r.headers), EPOCH_HEADER: life, TYPE_HEADER: message.type},
                )
                for r, message in messages
            ]
        )
        self._read_ahead = await self._fetch(
            self._statements.mark_sent_and_read_on,
            sent_ids=[r.id for r in rows],
            sent_at=utcnow(),
            sent_epoch=life,
            batch_size=self.batch_size,
        )
        for r in rows:
            OUTBOX_PUBLISHED.labels(self.outbox.schema, r.topic).inc()
        return len(rows)

    async def _fetch(self, statement: CompiledRead, **values: Any) -> list[Fields]:
        """`statement` on the publisher's own connection, traced as every statement is."""
        assert self._leader is not None, "only the publisher reads and marks rows"
        try:
            rows: list[Fields] = await traced(
                self._database,
                statement.sql,
                self._leader.fetch(statement.sql, *statement.arguments(values), record_class=Fields),
            )
        except BaseException:
            await self.close()
            raise
        return rows

    async def resend_earlier_lives(self) -> int:
        """Puts back every retained row sent before the broker's log began its current life."""
        table = self.outbox.table
        epoch = self.epoch.current
        # Rows read ahead of the ones put back would leave before them.
        self._read_ahead = []
        async with self.db.transaction() as session:
            resent = await rows_affected(
                session,
                update(table)
                .where(table.c.sent_at.is_not(None), table.c.sent_epoch.is_distinct_from(epoch))
                .values(sent_at=None, sent_epoch=None),
            )
        self._resent_before = epoch
        if resent:
            log.warning("outbox rows sent again to a broker that lost its log", extra={"rows": resent})
        return resent

    async def purge_sent(self) -> None:
        table = self.outbox.table
        async with self.db.transaction() as session:
            await session.execute(table.delete().where(table.c.sent_at < utcnow() - self.retention))

    async def measure_backlog(self) -> None:
        """Counts unsent rows (through the partial index on them) and the oldest one's age."""
        table = self.outbox.table
        async with self.db.read() as session:
            count, oldest = (
                await session.execute(
                    select(func.count(), func.extract("epoch", func.now() - func.min(table.c.created_at))).where(
                        table.c.sent_at.is_(None)
                    )
                )
            ).one()
        OUTBOX_BACKLOG.labels(self.outbox.schema).set(count)
        OUTBOX_OLDEST_AGE.labels(self.outbox.schema).set(float(oldest or 0))

    async def report_backlog(self, every_seconds: float = BACKLOG_REPORT_SECONDS) -> None:
        await run_periodically(self.measure_backlog, every_seconds, f"outbox backlog of {self.outbox.schema}")

    async def _listen(self) -> None:
        """Wakes the relay on every outbox insert; polling alone still covers a lost notification."""
        channel = f"outbox_{self.outbox.schema}"
        while True:
            try:
                conn = await connect(self.database_url)
                try:
                    await conn.add_listener(channel, lambda *_: self._wake.set())
                    self.listening.set()
                    while not conn.is_closed():
                        await asyncio.sleep(5)
                finally:
                    self.listening.clear()
                    await conn.close()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("outbox listener lost its connection; retrying", exc_info=True)
                await asyncio.sleep(1)

    async def run(self) -> None:
        listener = asyncio.create_task(self._listen())
        passes = 0
        try:
            while True:
                # Cleared before the pass, so an insert notified during the pass is not missed.
                self._wake.clear()
                try:
                    sent = await self.relay_once()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("outbox relay pass failed; will retry", exc_info=True)
                    sent = 0
                    await asyncio.sleep(0.5)
                passes += 1
                if passes % 3600 == 0:
                    await self.purge_sent()
                if sent and self._read_ahead:
                    continue
                # Nothing read ahead: every row committed before this pass began was read, and one
                # committed since has woken the relay or will.
                await woken_or_after(self._wake, self.idle_poll_seconds)
        finally:
            listener.cancel()
            await self.close()


class _RelayStatements:
    """The relay's two statements on its table, compiled once."""

    def __init__(self, table: Table) -> None:
        columns = (
            table.c.id,
            table.c.topic,
            table.c.key,
            # As their text: the publisher's connection is the driver's own, with no JSON codec.
            cast(table.c.payload, Text).label("payload"),
            cast(table.c.headers, Text).label("headers"),
        )
        batch_size: BindParameter[int] = bindparam("batch_size")
        self.unsent = CompiledRead.of(
            select(*columns).where(table.c.sent_at.is_(None)).order_by(table.c.id).limit(batch_size)
        )
        sent_ids = bindparam("sent_ids", type_=ARRAY(UUID(as_uuid=True)))
        marked = (
            update(table)
            .where(table.c.id == func.any(sent_ids))
            .values(sent_at=bindparam("sent_at"), sent_epoch=bindparam("sent_epoch"))
            .cte("marked")
        )
        # The SELECT sees the table as it was before the UPDATE beside it: the rows it marks are
        # left out by id.
        self.mark_sent_and_read_on = CompiledRead.of(
            select(*columns)
            .add_cte(marked)
            .where(table.c.sent_at.is_(None), not_(table.c.id == func.any(sent_ids)))
            .order_by(table.c.id)
            .limit(batch_size)
        )
