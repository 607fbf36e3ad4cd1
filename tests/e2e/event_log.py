"""Every message the stack publishes on one topic of events (`printcloud.domain-events` unless
told), read from the start by a consumer in a thread: what devices and jobs emit, before the
webhooks service turns it into deliveries and the feed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from aiokafka import AIOKafkaConsumer

from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import DOMAIN_EVENTS


class EventLog:
    def __init__(self, bootstrap_servers: str, topic: str = DOMAIN_EVENTS) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self._messages: list[Message] = []
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._stop = asyncio.Event()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._consume(),), daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _consume(self) -> None:
        consumer = AIOKafkaConsumer(
            self.topic, bootstrap_servers=self.bootstrap_servers, group_id=None, auto_offset_reset="earliest"
        )
        await consumer.start()
        try:
            while not self._stop.is_set():
                batches = await consumer.getmany(timeout_ms=200)
                with self._lock:
                    self._messages += [Message.decode(r.value) for rs in batches.values() for r in rs]
        finally:
            await consumer.stop()

    def of(self, resource_id: str, event_type: str | None = None) -> list[Message]:
        """Events about one resource (its id in `data.id`), oldest first per partition."""
        with self._lock:
            return [
                m
                for m in self._messages
                if m.data.get("id") == resource_id and (event_type is None or m.type == event_type)
            ]

    def find(self, event_type: str, resource_id: str, where: Callable[[dict[str, Any]], bool]) -> Message | None:
        return next((m for m in reversed(self.of(resource_id, event_type)) if where(m.data)), None)
