"""Kafka producer and consumer with the project's conventions: JSON `Message` values, trace
context and request id in headers, manual commits after the handler succeeded (at least once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError
from opentelemetry.trace import SpanKind
from prometheus_client import Counter

from printcloud.core.messages import Message
from printcloud.core.telemetry import activate_carrier
from printcloud.core.topics import ALL_TOPICS, PARTITIONS

log = logging.getLogger(__name__)

CONSUMED = Counter("printcloud_bus_consumed_total", "Kafka messages handled", ["group", "topic", "outcome"])

Handler = Callable[[Message], Awaitable[None]]


async def ensure_topics(bootstrap: str, topics: Sequence[str] = ALL_TOPICS, partitions: int = PARTITIONS) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = [NewTopic(t, num_partitions=partitions, replication_factor=1) for t in topics if t not in existing]
        if missing:
            # Another process may create them first.
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics(missing)
    finally:
        await admin.close()


class Producer:
    def __init__(self, bootstrap: str) -> None:
        self._producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=2)

    async def start(self) -> None:
        await self._producer.start()

    async def stop(self) -> None:
        await self._producer.stop()

    async def send_many(self, records: Sequence[tuple[str, str, bytes, Mapping[str, str]]]) -> None:
        """Sends (topic, key, value, headers) records and returns once the broker acknowledged all."""
        futures = [
            await self._producer.send(
                topic, value=value, key=key.encode(), headers=[(k, v.encode()) for k, v in headers.items()]
            )
            for topic, key, value, headers in records
        ]
        await asyncio.gather(*futures)


class Consumer:
    """Runs `handler` for each message of `topics`; a failing handler is retried, never skipped."""

    def __init__(
        self,
        bootstrap: str,
        group_id: str,
        topics: Sequence[str],
        handler: Handler,
        *,
        auto_offset_reset: str = "earliest",
    ) -> None:
        """`auto_offset_reset="latest"` suits a group that lives only as long as one process."""
        self.group_id = group_id
        self.handler = handler
        self._consumer = AIOKafkaConsumer(
            *topics,
            bootstrap_servers=bootstrap,
            group_id=group_id,
            enable_auto_commit=False,
            auto_offset_reset=auto_offset_reset,
        )

    async def start(self) -> None:
        await self._consumer.start()

    async def stop(self) -> None:
        await self._consumer.stop()

    async def _handle(self, topic: str, raw: bytes, headers: Mapping[str, str]) -> None:
        message = Message.decode(raw)
        delay = 0.2
        while True:
            with activate_carrier(headers, f"consume {topic}", SpanKind.CONSUMER):
                try:
                    await self.handler(message)
                    CONSUMED.labels(self.group_id, topic, "ok").inc()
                    return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    CONSUMED.labels(self.group_id, topic, "retry").inc()
                    log.exception("handler failed; retrying", extra={"message_id": message.id, "type": message.type})
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def run(self) -> None:
        async for record in self._consumer:
            headers = {k: v.decode() for k, v in (record.headers or ())}
            try:
                await self._handle(record.topic, record.value, headers)
            except (ValueError, KeyError):
                # A message that cannot be decoded will never succeed; log it loudly and move on.
                CONSUMED.labels(self.group_id, record.topic, "malformed").inc()
                log.error("malformed message skipped", extra={"topic": record.topic, "offset": record.offset})
            await self._consumer.commit()
