"""The outbox against a real PostgreSQL and a real broker: what commits is published, in order,
with its trace context; what rolls back never is; a crash after publishing repeats, never loses."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer
from sqlalchemy import MetaData, func, select
from sqlalchemy.pool import QueuePool

from printcloud.core.db.database import Database
from printcloud.core.db.url import connect
from printcloud.core.kafka.broker_epoch import EPOCH_HEADER, BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Producer
from printcloud.core.kafka.envelope import TYPE_HEADER, Message
from printcloud.core.kafka.outbox import Outbox, OutboxRelay
from printcloud.core.telemetry.request_ids import request_id_var
from printcloud.devstack.infrastructure import Broker, start_broker

# What `Producer.send_many` sends: (topic, key, value, headers).
Record = tuple[str, str, bytes, Mapping[str, str]]

SCHEMA = "outbox_test"


@pytest.fixture
async def producer(broker: Broker) -> AsyncIterator[Producer]:
    running = Producer(broker.bootstrap)
    await running.start()
    yield running
    await running.stop()


Relays = Callable[..., OutboxRelay]


@pytest.fixture
async def relays(db: Database, database_url: str, epoch: BrokerEpoch) -> AsyncIterator[Relays]:
    """Relays of the test's outbox; each gives its publisher's lock up at the end, as a process does."""
    made: list[OutboxRelay] = []

    def relay(outbox: Outbox, producer: Any, relay_epoch: BrokerEpoch = epoch, **options: Any) -> OutboxRelay:
        made.append(OutboxRelay(db, outbox, producer, database_url, relay_epoch, **options))
        return made[-1]

    yield relay
    for made_relay in made:
        await made_relay.close()


async def _consume(broker: Broker, topic: str, count: int) -> list[tuple[Message, dict[str, str]]]:
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=broker.bootstrap, auto_offset_reset="earliest")
    await consumer.start()
    received: list[tuple[Message, dict[str, str]]] = []
    try:
        async with asyncio.timeout(20):
            async for record in consumer:
                received.append((Message.decode(record.value), {k: v.decode() for k, v in record.headers}))
                if len(received) == count:
                    break
    finally:
        await consumer.stop()
    return received


def _message(n: int) -> Message:
    return Message(type="thing.happened", organization_id="org", mode="test", data={"n": n})


async def test_committed_rows_are_published_in_order_with_request_id(
    db: Database, producer: Producer, broker: Broker, relays: Relays
) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    outbox = Outbox(MetaData(schema=SCHEMA))
    token = request_id_var.set("req-outbox")
    try:
        async with db.transaction() as session:
            for n in range(3):
                await outbox.add(session, topic, "key-1", _message(n))
    finally:
        request_id_var.reset(token)

    relay = relays(outbox, producer)
    assert await relay.relay_once() == 3
    assert await relay.relay_once() == 0, "sent rows are not sent again"

    received = await _consume(broker, topic, 3)
    assert [m.data["n"] for m, _ in received] == [0, 1, 2]
    assert all(headers["x-request-id"] == "req-outbox" for _, headers in received)
    assert all(headers[TYPE_HEADER] == message.type for message, headers in received)


async def test_rolled_back_changes_publish_nothing(db: Database, producer: Producer, relays: Relays) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))
    with pytest.raises(RuntimeError):
        async with db.transaction() as session:
            await outbox.add(session, "never", "k", _message(1))
            raise RuntimeError("the state change failed")

    assert await relays(outbox, producer).relay_once() == 0


async def test_a_crash_after_publishing_repeats_the_rows_and_loses_none(
    db: Database, producer: Producer, broker: Broker, relays: Relays
) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    outbox = Outbox(MetaData(schema=SCHEMA))
    async with db.transaction() as session:
        await outbox.add(session, topic, "k", _message(7))

    class CrashAfterSend:
        """Publishes for real, then dies before the rows are marked sent."""

        async def send_many(self, records: Sequence[Record]) -> None:
            await producer.send_many(records)
            raise ConnectionError("process died before marking the rows sent")

    crashed = relays(outbox, CrashAfterSend())
    with pytest.raises(ConnectionError):
        await crashed.relay_once()
    await crashed.close()  # its process died: its session, and the publisher's lock, with it
    async with db.read() as session:
        unsent = await session.scalar(
            select(func.count()).select_from(outbox.table).where(outbox.table.c.sent_at.is_(None))
        )
    assert unsent == 1, "the row stays unsent, so it is published again"

    assert await relays(outbox, producer).relay_once() == 1
    received = await _consume(broker, topic, 2)
    first, duplicate = (message for message, _ in received)
    assert first.id == duplicate.id, "a duplicate with the same message id"
    assert json.loads(first.encode())["data"] == {"n": 7}


async def test_the_relay_wakes_on_insert_without_waiting_for_its_poll(
    db: Database, producer: Producer, broker: Broker, relays: Relays
) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    outbox = Outbox(MetaData(schema=SCHEMA))
    # A poll interval far longer than the test's deadline: only the notification can deliver in time.
    relay = relays(outbox, producer, idle_poll_seconds=300)
    running = asyncio.create_task(relay.run())
    try:
        await asyncio.wait_for(relay.listening.wait(), 10)
        async with db.transaction() as session:
            await outbox.add(session, topic, "k", _message(1))
        received = await _consume(broker, topic, 1)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
    assert received[0][0].data == {"n": 1}


async def test_rows_sent_to_a_broker_that_lost_its_log_are_sent_again(
    db: Database, relays: Relays, tmp_path: Path
) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))  # a database of its own: every row of it is counted
    broker = start_broker(log_path=tmp_path / "broker.log")
    producer = Producer(broker.bootstrap)
    epoch: BrokerEpoch | None = None
    try:
        topic = f"test-{secrets.token_hex(4)}"
        epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=60)
        await ensure_topics(broker.bootstrap, [topic], partitions=1)
        await producer.start()
        async with db.transaction() as session:
            for n in range(3):
                await outbox.add(session, topic, "k", _message(n))
        relay = relays(outbox, producer, epoch)
        assert await relay.relay_once() == 3
        assert await relay.resend_earlier_lives() == 0, "nothing to resend while the log lives"
        first_life = epoch.current

        broker.process.kill()  # the embedded broker keeps its log in memory: it is gone
        broker.process.wait()
        broker = start_broker(broker.port, tmp_path / "broker.log")
        await epoch.check()
        assert epoch.current != first_life
        await ensure_topics(broker.bootstrap, [topic], partitions=1)

        assert await relay.resend_earlier_lives() == 3
        assert await relay.relay_once() == 3
        received = await _consume(broker, topic, 3)
        assert [message.data["n"] for message, _ in received] == [0, 1, 2]
        assert await relay.resend_earlier_lives() == 0, "rows sent in this life are not sent again"
    finally:
        if epoch is not None:
            await epoch.close()
        await producer.stop()
        broker.stop()


async def test_a_slow_broker_holds_no_transaction_and_no_pooled_connection(
    db: Database, broker: Broker, relays: Relays, database_url: str
) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))
    async with db.transaction() as session:
        await outbox.add(session, "slow", "k", _message(1))

    class SlowBroker:
        def __init__(self) -> None:
            self.sending, self.release = asyncio.Event(), asyncio.Event()

        async def send_many(self, records: Sequence[Record]) -> None:
            self.sending.set()
            await self.release.wait()

    slow = SlowBroker()
    relay = relays(outbox, slow)
    publishing = asyncio.create_task(relay.relay_once())
    try:
        await asyncio.wait_for(slow.sending.wait(), 10)
        pool = db.engine.sync_engine.pool
        assert isinstance(pool, QueuePool) and pool.checkedout() == 0, "no pooled connection waits on the broker"
        probe = await connect(database_url)
        try:
            waiting = await probe.fetchval(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND state LIKE 'idle in transaction%'"
            )
        finally:
            await probe.close()
        assert waiting == 0, "no transaction stays open across the send"
        assert await relays(outbox, slow).relay_once() == 0, "one publisher at a time, still"
    finally:
        slow.release.set()
        assert await asyncio.wait_for(publishing, 10) == 1


class _Recorder:
    """A broker that keeps what it is sent: (the value's `n`, the life it was said to go to) per batch."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[int, str]]] = []

    async def send_many(self, records: Sequence[Record]) -> None:
        self.batches.append(
            [(Message.decode(value).data["n"], headers.get(EPOCH_HEADER, "")) for _, _, value, headers in records]
        )


def _believing(life: str) -> BrokerEpoch:
    epoch = BrokerEpoch("127.0.0.1:9")  # never checked: the test says which life the relay believes in
    epoch.current = life
    return epoch


def _life_ends_on_read(relay: OutboxRelay, epoch: BrokerEpoch, next_life: str) -> None:
    """The relay reads its batch while the epoch check notices a new life."""
    fetch = relay._fetch

    async def fetch_as_the_life_ends(statement: Any, **values: Any) -> Any:
        epoch.current = next_life
        return await fetch(statement, **values)

    relay._fetch = fetch_as_the_life_ends  # type: ignore[method-assign]


async def test_rows_go_out_named_after_a_life_whose_earlier_rows_were_put_back_before_them(
    db: Database, relays: Relays
) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))
    epoch = _believing("life-1")
    sent = _Recorder()
    relay = relays(outbox, sent, epoch)
    async with db.transaction() as session:
        await outbox.add(session, "t", "k", _message(1))
    assert await relay.relay_once() == 1

    async with db.transaction() as session:
        await outbox.add(session, "t", "k", _message(2))
    _life_ends_on_read(relay, epoch, "life-2")
    assert await relay.relay_once() == 1
    del relay._fetch  # the relay's own again
    async with db.read() as session:
        sent_epoch = await session.scalar(
            select(outbox.table.c.sent_epoch)
            .where(outbox.table.c.sent_at.is_not(None))
            .order_by(outbox.table.c.id.desc())
            .limit(1)
        )
    assert sent_epoch == "life-1", "recorded as sent in the life it was said to go to, so it is put back"

    assert await relay.relay_once() == 2
    assert sent.batches == [[(1, "life-1")], [(2, "life-1")], [(1, "life-2"), (2, "life-2")]], (
        "the row sent as the life ended is sent again, after the one before it"
    )


async def test_a_new_publisher_puts_back_what_one_behind_on_the_broker_sent_before_it(
    db: Database, relays: Relays
) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))
    sent = _Recorder()
    up_to_date = relays(outbox, sent, _believing("life-2"))
    assert await up_to_date.relay_once() == 0, "publisher in life-2 first, with nothing to send"
    await up_to_date.close()

    behind = relays(outbox, sent, _believing("life-1"))  # its process has not noticed life-2 yet
    async with db.transaction() as session:
        await outbox.add(session, "t", "k", _message(1))
    assert await behind.relay_once() == 1
    await behind.close()

    assert await up_to_date.relay_once() == 1, "publisher again: the row sent to a life that was over goes again"
    assert sent.batches == [[(1, "life-1")], [(1, "life-2")]]
