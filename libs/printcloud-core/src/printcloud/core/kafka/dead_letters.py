"""Messages a consumer could not handle: kept in the consumer's schema, counted, and sent again
on an operator's word.

A handler that fails for a reason of the message's own (a bug it triggers, data it cannot take)
fails however often it is retried; held in place, that one message would stop its partition for
every tenant. After `MAX_ATTEMPTS` it is stored here with its error and the partition moves on.
A failure of what handlers depend on (the database, a backing service) is not the message's
fault and every message would meet it: that one is retried without limit (`printcloud.core.kafka.bus`).

Operators: `python -m printcloud.<service> dead-letters list | replay ID | discard ID`. A replay
sends the record again to its topic; consumers recognise the message ids they handled, so every
group handles it at most once more, and a replay is safe to repeat.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import ConsumerRecord
from prometheus_client import Gauge
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    Row,
    Table,
    Text,
    func,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID

from printcloud.core.db.database import Database, rows_affected
from printcloud.core.ids import uuid7
from printcloud.core.kafka.broker_epoch import EPOCH_HEADER
from printcloud.core.kafka.bus import Producer
from printcloud.core.periodic import run_periodically
from printcloud.core.timeutil import isoformat, isoformat_or_none, utcnow

MAX_ATTEMPTS = 5
_MAX_ERROR_CHARS = 2000
COUNT_SECONDS = 30.0

# A gauge, not only the counter of letters set aside (`printcloud_bus_consumed_total`): a letter
# waits for an operator, and the alert on it lasts until one replays or discards it.
WAITING = Gauge(
    "printcloud_dead_letters_waiting",
    "Messages a consumer group set aside that no operator has replayed or discarded yet",
    ["consumer"],
)


def dead_letters_table(metadata: MetaData) -> Table:
    return Table(
        "dead_letters",
        metadata,
        Column("id", UUID(as_uuid=True), primary_key=True),
        Column("consumer", Text, nullable=False),
        Column("topic", Text, nullable=False),
        Column("partition", Integer, nullable=False),
        Column("offset", BigInteger, nullable=False),
        Column("key", Text),
        Column("value", LargeBinary, nullable=False),
        Column("headers", JSONB, nullable=False),
        Column("error", Text, nullable=False),
        Column("attempts", Integer, nullable=False),
        Column("failed_at", DateTime(timezone=True), nullable=False),
        Column("replayed_at", DateTime(timezone=True)),
    )


def describe(error: BaseException) -> str:
    """The error as an operator reads it: its type and message, bounded."""
    return f"{type(error).__name__}: {error}"[:_MAX_ERROR_CHARS]


@dataclass(frozen=True)
class DeadLetter:
    id: uuid.UUID
    consumer: str
    topic: str
    partition: int
    offset: int
    key: str | None
    value: bytes
    headers: Mapping[str, str]
    error: str
    attempts: int
    failed_at: str
    replayed_at: str | None

    def summary(self) -> dict[str, Any]:
        """What `dead-letters list` prints: everything but the value, which may be large."""
        try:
            message_type = json.loads(self.value).get("type")
        except ValueError:
            message_type = None
        return {
            "id": str(self.id),
            "consumer": self.consumer,
            "topic": self.topic,
            "partition": self.partition,
            "offset": self.offset,
            "type": message_type,
            "error": self.error,
            "attempts": self.attempts,
            "failedAt": self.failed_at,
            "replayedAt": self.replayed_at,
        }


class DeadLetters:
    def __init__(self, db: Database, metadata: MetaData) -> None:
        self.db = db
        self.table = dead_letters_table(metadata)

    async def keep(
        self, consumer: str, record: ConsumerRecord[bytes, bytes], error: BaseException, attempts: int
    ) -> None:
        headers = {k: v.decode("utf-8", "replace") for k, v in (record.headers or ())}
        async with self.db.transaction() as session:
            await session.execute(
                self.table.insert().values(
                    id=uuid7(),
                    consumer=consumer,
                    topic=record.topic,
                    partition=record.partition,
                    offset=record.offset,
                    key=record.key.decode("utf-8", "replace") if record.key is not None else None,
                    value=record.value,
                    headers=headers,
                    error=describe(error),
                    attempts=attempts,
                    failed_at=utcnow(),
                )
            )

    async def count_waiting(self, consumer: str) -> int:
        """The letters of `consumer` neither replayed nor discarded."""
        query = (
            select(func.count())
            .select_from(self.table)
            .where(self.table.c.consumer == consumer, self.table.c.replayed_at.is_(None))
        )
        async with self.db.read() as session:
            return int((await session.execute(query)).scalar_one())

    async def report_waiting(self, consumer: str, every_seconds: float = COUNT_SECONDS) -> None:
        """Keeps `printcloud_dead_letters_waiting{consumer}` current. Every replica of the consuming
        service counts the same rows: dashboards and alerts take `max`."""

        async def measure() -> None:
            WAITING.labels(consumer).set(await self.count_waiting(consumer))

        await run_periodically(measure, every_seconds, "dead letters waiting")

    async def list(self, *, include_replayed: bool = False) -> Sequence[DeadLetter]:
        query = select(self.table).order_by(self.table.c.id)
        if not include_replayed:
            query = query.where(self.table.c.replayed_at.is_(None))
        async with self.db.read() as session:
            rows = (await session.execute(query)).all()
        return [_letter(row) for row in rows]

    async def replay(self, letter_id: uuid.UUID, producer: Producer) -> bool:
        """Sends the record again to its topic; False when there is no such dead letter."""
        async with self.db.read() as session:
            row = (await session.execute(select(self.table).where(self.table.c.id == letter_id))).first()
        if row is None:
            return False
        letter = _letter(row)
        # Not the life it was first sent to: a log that has lived another since would skip it.
        headers = {k: v for k, v in letter.headers.items() if k != EPOCH_HEADER}
        await producer.send_many([(letter.topic, letter.key or "", letter.value, headers)])
        async with self.db.transaction() as session:
            await session.execute(update(self.table).where(self.table.c.id == letter_id).values(replayed_at=utcnow()))
        return True

    async def discard(self, letter_id: uuid.UUID) -> bool:
        async with self.db.transaction() as session:
            removed = await rows_affected(session, self.table.delete().where(self.table.c.id == letter_id))
        return removed > 0


def _letter(row: Row[Any]) -> DeadLetter:
    return DeadLetter(
        id=row.id,
        consumer=row.consumer,
        topic=row.topic,
        partition=row.partition,
        offset=row.offset,
        key=row.key,
        value=bytes(row.value),
        headers=dict(row.headers),
        error=row.error,
        attempts=row.attempts,
        failed_at=isoformat(row.failed_at),
        replayed_at=isoformat_or_none(row.replayed_at),
    )
