"""A consumer's stop against a real broker: once begun, it ends the group membership whole, even
when whoever stops it is cancelled meanwhile (a service shutting down, a new life of the broker's
log replacing the member). aiokafka marks its consumer closed before it ends the membership's
tasks, so a stop cut short left the heartbeats running for good, against a broker long gone, and
a second stop did nothing."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import pytest

from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer
from printcloud.core.kafka.envelope import Message
from printcloud.devstack.infrastructure import Broker, start_broker

MEMBERSHIP_TASKS = ("GroupCoordinator._heartbeat_routine", "GroupCoordinator._coordination_routine")


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    started = start_broker()
    yield started
    started.stop()


def _membership_tasks() -> set[asyncio.Task[object]]:
    return {
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") in MEMBERSHIP_TASKS and not task.done()
    }


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
    before = _membership_tasks()
    consumer = await _joined_consumer(broker)
    theirs = _membership_tasks() - before
    assert theirs, "a member of a group runs its heartbeats and its coordination"

    stopping = asyncio.create_task(consumer.stop())
    for _ in range(turns):  # into the stop, at a different point of it each time
        await asyncio.sleep(0)
    assert stopping.cancel(), "the stop is still under way"
    with pytest.raises(asyncio.CancelledError):
        await stopping

    assert not theirs & _membership_tasks(), "no heartbeat or coordination of the stopped member goes on"
    await consumer.epoch.close()
