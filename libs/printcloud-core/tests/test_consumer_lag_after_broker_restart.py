"""The consumer-lag gauge across a broker that lost its log, against a real broker: it must go on
measuring the member of the new life, not stay at what it last saw of the old one (a fault run
left it at 370 for good while every message had been handled and committed)."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from prometheus_client import REGISTRY

from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.devstack.infrastructure import start_broker

# Each measurement asks for every partition's committed offset in turn: with several, one of those
# calls is most likely in flight when the member of the old life is stopped.
PARTITIONS = 6


def _lag(group: str, topic: str) -> float:
    return sum(
        REGISTRY.get_sample_value(
            "printcloud_kafka_consumer_lag_messages", {"group": group, "topic": topic, "partition": str(p)}
        )
        or 0.0
        for p in range(PARTITIONS)
    )


def _message() -> bytes:
    return Message(type="thing.changed", organization_id="org", mode="test", data={}).encode()


async def _until(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.05)


async def test_the_lag_of_the_new_life_is_measured_after_the_broker_lost_its_log(tmp_path: Path) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    topic, group = f"test-{secrets.token_hex(4)}", f"g-{secrets.token_hex(4)}"
    release = asyncio.Event()
    handled: list[str] = []

    async def handle(message: Message) -> None:
        await release.wait()  # the old life's member is busy with its first message when the broker dies
        handled.append(message.id)

    await ensure_topics(broker.bootstrap, [topic], partitions=PARTITIONS)
    epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=3600)
    consumer = Consumer(broker.bootstrap, group, [topic], handle, epoch)
    producer = Producer(broker.bootstrap)
    tasks: list[asyncio.Task[None]] = []
    try:
        await producer.start()
        # One batch each: the embedded broker (Tansu) counts a batch as one offset at the log's end.
        for _ in range(5):
            await producer.send_many([(topic, "k", _message(), {})])
        await consumer.start()
        # Back to back, so that a measurement is likely waiting on the old member when it is stopped:
        # without the bound on each measurement this fails about one run in two.
        tasks = [asyncio.create_task(consumer.run()), asyncio.create_task(consumer.report_lag(every_seconds=0.0))]
        await _until(lambda: _lag(group, topic) == 5, "the old life's lag is measured: the handler holds the first")

        broker.process.kill()  # the embedded broker keeps its log in memory: it is gone
        broker.process.wait()
        broker = start_broker(broker.port, tmp_path / "broker.log")
        await ensure_topics(broker.bootstrap, [topic], partitions=PARTITIONS)  # as every process's check does
        await epoch.check()
        release.set()
        await producer.send_many([(topic, "k", _message(), {})])
        await _until(lambda: len(handled) >= 6, "the new life's message is handled", 60)

        await _until(lambda: _lag(group, topic) == 0, "the gauge follows the new life, not the old one's last figure")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await consumer.stop()
        await epoch.close()
        await producer.stop()
        broker.stop()
