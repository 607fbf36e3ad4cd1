"""The order of a key's messages across a broker that lost its log, against a real broker and
PostgreSQL: a relay that has not noticed the new log yet sends a newer row into it, then notices
and sends the older rows again; the consumer must still handle the older row first."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from sqlalchemy import MetaData

from printcloud.core.db.database import Database
from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.outbox import Outbox, OutboxRelay
from printcloud.devstack.infrastructure import start_broker

SCHEMA = "broker_restart_order_test"


def _state(name: str) -> Message:
    return Message(type="thing.changed", organization_id="org", mode="test", data={"state": name})


async def test_a_row_resent_to_a_new_log_is_handled_before_a_newer_one_sent_there_first(
    db: Database, database_url: str, tmp_path: Path
) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    topic = f"test-{secrets.token_hex(4)}"
    outbox = Outbox(MetaData(schema=SCHEMA))
    producer = Producer(broker.bootstrap)
    # The relay and the consumer live in different processes, each with its own watch of the epoch;
    # neither watch checks by itself here (the test says when), so the relay's stays behind.
    relay_epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=3600)
    consumer_epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=3600)
    first_life = consumer_epoch.current
    relay = OutboxRelay(db, outbox, producer, database_url, relay_epoch)
    handled: list[str] = []  # as a consumer appends to the event feed: once per message id
    handled_ids: set[str] = set()
    progressed, both_handled = asyncio.Event(), asyncio.Event()

    async def handle(message: Message) -> None:
        if message.id not in handled_ids:
            handled_ids.add(message.id)
            handled.append(message.data["state"])
        progressed.set()
        if len(handled) == 2:
            both_handled.set()

    consumer = Consumer(broker.bootstrap, f"g-{secrets.token_hex(4)}", [topic], handle, consumer_epoch)
    consumer_epoch.on_change(lambda _: progressed.set())
    running: asyncio.Task[None] | None = None
    try:
        await ensure_topics(broker.bootstrap, [topic], partitions=1)
        await producer.start()
        async with db.transaction() as session:
            await outbox.add(session, topic, "job-a", _state("A1"))
        assert await relay.relay_once() == 1, "A1 is in the first life's log, not consumed"

        broker.process.kill()  # the embedded broker keeps its log in memory: it is gone
        broker.process.wait()
        broker = start_broker(broker.port, tmp_path / "broker.log")
        # Another process's check has recreated the topics; nobody has named the new life yet.
        await ensure_topics(broker.bootstrap, [topic], partitions=1)
        async with db.transaction() as session:
            await outbox.add(session, topic, "job-a", _state("A2"))
        assert await relay.relay_once() == 1, "A2 goes to the new log, the relay believing in the first life"
        assert relay_epoch.current == first_life

        await consumer.start()
        running = asyncio.create_task(consumer.run())
        # The consumer has read A2: it handled it, or it found the log in a new life.
        await asyncio.wait_for(progressed.wait(), 30)

        await relay_epoch.check()
        assert relay_epoch.current != first_life
        assert await relay.resend_earlier_lives() == 2, "the relay noticed: A1 and A2 go back in line"
        assert await relay.relay_once() == 2
        await consumer_epoch.check()  # the consumer has noticed by now too, whatever it did
        await asyncio.wait_for(both_handled.wait(), 60)
        assert handled == ["A1", "A2"], "the older state first, each once"
    finally:
        if running is not None:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)
        await consumer.stop()
        await consumer_epoch.close()
        await relay_epoch.close()
        await relay.close()
        await producer.stop()
        broker.stop()
