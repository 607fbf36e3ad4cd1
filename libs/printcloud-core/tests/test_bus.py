"""The consumer against a real broker: a group that starts at the end skips what came before it,
and once the broker lost its log, every group reads the new log from its start."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from printcloud.core.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.bus import Consumer, Handler, Producer
from printcloud.core.messages import Message
from printcloud.devstack.infrastructure import start_broker


def _record(topic: str, n: int) -> tuple[str, str, bytes, dict[str, str]]:
    return topic, "k", Message(type="thing.happened", organization_id="org", mode="test", data={"n": n}).encode(), {}


async def test_groups_read_a_log_the_broker_began_again_from_its_start(tmp_path: Path) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    topic = f"test-{secrets.token_hex(4)}"
    seen: dict[str, asyncio.Queue[int]] = {"at end": asyncio.Queue(), "at start": asyncio.Queue()}

    def handler(name: str) -> Handler:
        async def handle(message: Message) -> None:
            await seen[name].put(message.data["n"])

        return handle

    epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=60)
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    producer = Producer(broker.bootstrap)
    await producer.start()
    consumers = [
        Consumer(broker.bootstrap, f"g-{secrets.token_hex(4)}", [topic], handler("at end"), epoch, start_at_end=True),
        Consumer(broker.bootstrap, f"g-{secrets.token_hex(4)}", [topic], handler("at start"), epoch),
    ]
    running: list[asyncio.Task[None]] = []
    try:
        await producer.send_many([_record(topic, 0)])
        for consumer in consumers:
            await consumer.start()
            running.append(asyncio.create_task(consumer.run()))
        await producer.send_many([_record(topic, 1)])
        assert await asyncio.wait_for(seen["at start"].get(), timeout=30) == 0
        assert await asyncio.wait_for(seen["at end"].get(), timeout=30) == 1, (
            "what was sent before start() returned is skipped; what was sent after is read"
        )

        broker.process.kill()  # the embedded broker keeps its log in memory: it is gone
        broker.process.wait()
        broker = start_broker(broker.port, tmp_path / "broker.log")
        await epoch.check()
        await ensure_topics(broker.bootstrap, [topic], partitions=1)
        after = [100, 101, 102]
        await producer.send_many([_record(topic, n) for n in after])
        for name, queue in seen.items():
            received: list[int] = []
            async with asyncio.timeout(60):
                while len(received) < len(after):
                    value = await queue.get()
                    if value >= 100:
                        received.append(value)
            assert received == after, name
    finally:
        for task in running:
            task.cancel()
        for consumer in consumers:
            await consumer.stop()
        await producer.stop()
        broker.stop()
