"""A Kafka client's stop against a real broker: once begun, it ends the client's tasks whole (a
consumer's group membership, a producer's sender), even when whoever stops it is cancelled
meanwhile (a service shutting down, a new life of the broker's log replacing the member). aiokafka
marks its client closed before it ends those tasks, so a stop cut short left them running for
good, against a broker long gone, and a second stop did nothing."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import pytest

from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.devstack.infrastructure import Broker, start_broker

MEMBERSHIP_TASKS = ("GroupCoordinator._heartbeat_routine", "GroupCoordinator._coordination_routine")
SENDER_TASKS = ("Sender._sender_routine", "AIOKafkaClient._md_synchronizer")


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    started = start_broker()
    yield started
    started.stop()


def _running(names: tuple[str, ...]) -> set[asyncio.Task[object]]:
    return {
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") in names and not task.done()
    }


async def _cancelled_after(stop: asyncio.Task[None], turns: int) -> None:
    for _ in range(turns):  # into the stop, at a different point of it each time
        await asyncio.sleep(0)
    assert stop.cancel(), "the stop is still under way"
    with pytest.raises(asyncio.CancelledError):
        await stop


async def _ignore(message: Message) -> None:
    pass


async def _joined_consumer(broker: Broker) -> Consumer:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=3600)
    consumer = Consumer(broker.bootstrap, f"g-{secrets.token_hex(4)}", [topic], _ignore, epoch, start_at_end=True)
    await consumer.start()  # returns once the member is positioned: it has joined its group
    return consumer


@pytest.mark.parametrize("turns", [1, 2, 3])
async def test_a_stop_cancelled_halfway_still_ends_the_membership(broker: Broker, turns: int) -> None:
    before = _running(MEMBERSHIP_TASKS)
    consumer = await _joined_consumer(broker)
    theirs = _running(MEMBERSHIP_TASKS) - before
    assert theirs, "a member of a group runs its heartbeats and its coordination"

    await _cancelled_after(asyncio.create_task(consumer.stop()), turns)

    assert not theirs & _running(MEMBERSHIP_TASKS), "no heartbeat or coordination of the stopped member goes on"
    await consumer.epoch.close()


@pytest.mark.parametrize("turns", [1, 2, 3])
async def test_a_producer_stop_cancelled_halfway_still_ends_its_sender(broker: Broker, turns: int) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    before = _running(SENDER_TASKS)
    producer = Producer(broker.bootstrap)
    await producer.start()
    await producer.send_many([(topic, "key", b"value", {})])  # connected, a batch sent and acknowledged
    theirs = _running(SENDER_TASKS) - before
    assert len(theirs) == len(SENDER_TASKS), "a producer runs its sender and its metadata sync"

    await _cancelled_after(asyncio.create_task(producer.stop()), turns)

    assert not theirs & _running(SENDER_TASKS), (
        "neither the sender nor the metadata sync of the stopped producer goes on"
    )
