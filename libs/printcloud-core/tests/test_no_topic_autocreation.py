"""A send to a topic that does not exist waits for it and creates nothing: a broker that creates
topics when asked for them made `printcloud.domain-events` with its own partition count after
losing its log, and sends to the partitions it lacked were lost."""

from __future__ import annotations

import asyncio
import secrets

import pytest
from aiokafka.admin import AIOKafkaAdminClient

from printcloud.core.kafka.broker_epoch import ensure_topics
from printcloud.core.kafka.bus import Producer
from printcloud.devstack.infrastructure import Broker

# Long enough for the client to have asked for the topic many times over on loopback.
ASKING_SECONDS = 2.0


async def _topics(broker: Broker) -> list[str]:
    admin = AIOKafkaAdminClient(bootstrap_servers=broker.bootstrap)
    await admin.start()
    try:
        return list(await admin.list_topics())
    finally:
        await admin.close()


async def test_a_send_to_a_missing_topic_waits_for_it_and_creates_nothing(broker: Broker) -> None:
    topic = f"never-made-{secrets.token_hex(4)}"
    producer = Producer(broker.bootstrap)
    await producer.start()
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(ASKING_SECONDS):
                await producer.send_many([(topic, "key", b"{}", {})])
        assert topic not in await _topics(broker)
        await ensure_topics(broker.bootstrap, [topic], partitions=6)
        await producer.send_many([(topic, "key", b"{}", {})])
    finally:
        await producer.stop()
