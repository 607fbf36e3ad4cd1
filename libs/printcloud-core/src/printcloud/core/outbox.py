"""Transactional outbox: `add()` inside the state change's transaction, `OutboxRelay` publishes.

A crash between publishing and marking sent publishes the row again on the next pass: consumers
see a duplicate, never a gap. One relay per schema publishes at a time (advisory lock), so rows
leave in id order even with several replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid
from datetime import timedelta

import asyncpg
from prometheus_client import Counter
from sqlalchemy import Column, DateTime, MetaData, Table, Text, func, select, update
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.bus import Producer
from printcloud.core.db import Database, asyncpg_dsn
from printcloud.core.messages import Message
from printcloud.core.telemetry import carrier_headers
from printcloud.core.timeutil import utcnow

log = logging.getLogger(__name__)

OUTBOX_PUBLISHED = Counter("printcloud_outbox_published_total", "Outbox rows published to Kafka", ["schema", "topic"])


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
    )


class Outbox:
    def __init__(self, metadata: MetaData) -> None:
        self.table = outbox_table(metadata)
        self.schema = metadata.schema or "public"

    async def add(self, session: AsyncSession, topic: str, key: str, message: Message) -> None:
        await session.execute(
            self.table.insert().values(
                id=uuid.UUID(message.id),
                topic=topic,
                key=key,
                payload=message.to_json(),
                headers=carrier_headers(),
            )
        )


class OutboxRelay:
    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        producer: Producer,
        database_url: str,
        *,
        batch_size: int = 200,
        idle_poll_seconds: float = 1.0,
        retention: timedelta = timedelta(hours=24),
    ) -> None:
        self.db = db
        self.outbox = outbox
        self.producer = producer
        self.database_url = database_url
        self.batch_size = batch_size
        self.idle_poll_seconds = idle_poll_seconds
        self.retention = retention
        self._wake = asyncio.Event()
        # Set while notifications are being received; lets tests wait for it instead of sleeping.
        self.listening = asyncio.Event()
        self._lock_key = int.from_bytes(
            hashlib.sha256(f"outbox:{outbox.schema}".encode()).digest()[:8], "big", signed=True
        )

    async def relay_once(self) -> int:
        table = self.outbox.table
        async with self.db.transaction() as session:
            if not await session.scalar(select(func.pg_try_advisory_xact_lock(self._lock_key))):
                return 0
            rows = (
                await session.execute(
                    select(table.c.id, table.c.topic, table.c.key, table.c.payload, table.c.headers)
                    .where(table.c.sent_at.is_(None))
                    .order_by(table.c.id)
                    .limit(self.batch_size)
                )
            ).all()
            if not rows:
                return 0
            await self.producer.send_many(
                [(r.topic, r.key, Message.from_json(r.payload).encode(), r.headers) for r in rows]
            )
            await session.execute(update(table).where(table.c.id.in_([r.id for r in rows])).values(sent_at=utcnow()))
        for r in rows:
            OUTBOX_PUBLISHED.labels(self.outbox.schema, r.topic).inc()
        return len(rows)

    async def purge_sent(self) -> None:
        table = self.outbox.table
        async with self.db.transaction() as session:
            await session.execute(table.delete().where(table.c.sent_at < utcnow() - self.retention))

    async def _listen(self) -> None:
        """Wakes the relay on every outbox insert; polling alone still covers a lost notification."""
        channel = f"outbox_{self.outbox.schema}"
        while True:
            try:
                conn = await asyncpg.connect(asyncpg_dsn(self.database_url))
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
                if sent:
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self.idle_poll_seconds)
        finally:
            listener.cancel()
