"""Dead letters against a real broker and PostgreSQL: a message that keeps failing is set aside
and its partition moves on; a failure of what handlers depend on is retried, never set aside; an
operator lists and replays what was set aside."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Callable

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import MetaData

from printcloud.core.db.database import Database
from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import MAX_ATTEMPTS, Consumer, Handler, Producer
from printcloud.core.kafka.dead_letters import DeadLetters
from printcloud.core.kafka.dead_letters_command import run_dead_letters_command
from printcloud.core.kafka.envelope import Message
from printcloud.devstack.infrastructure import Broker

SCHEMA = "dead_letters_test"


def _record(topic: str, n: int) -> tuple[str, str, bytes, dict[str, str]]:
    return topic, "k", Message(type="thing.happened", organization_id="org", mode="test", data={"n": n}).encode(), {}


@pytest.fixture
async def producer(broker: Broker) -> AsyncIterator[Producer]:
    running = Producer(broker.bootstrap)
    await running.start()
    yield running
    await running.stop()


@pytest.fixture
async def topic(broker: Broker) -> str:
    name = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [name], partitions=1)
    return name


Consuming = Callable[[Handler, DeadLetters], None]


@pytest.fixture
async def consuming(broker: Broker, topic: str) -> AsyncIterator[Consuming]:
    """Starts a consumer of `topic` in the background until the test ends."""
    epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=60)
    started: list[tuple[Consumer, asyncio.Task[None]]] = []

    def consume(handler: Handler, dead_letters: DeadLetters) -> None:
        consumer = Consumer(
            broker.bootstrap,
            f"g-{secrets.token_hex(4)}",
            [topic],
            handler,
            epoch,
            dead_letters=dead_letters,
            first_retry_seconds=0.01,
        )

        async def run() -> None:
            await consumer.start()
            await consumer.run()

        started.append((consumer, asyncio.create_task(run())))

    yield consume
    for consumer, task in started:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await consumer.stop()
    await epoch.close()


async def _until(condition: Callable[[], bool], what: str) -> None:
    try:
        async with asyncio.timeout(60):  # a deadline for a broken consumer, not a wait for a race
            while not condition():
                await asyncio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"never handled: {what}") from None


def _dead_lettered(topic: str) -> float:
    """`printcloud_bus_consumed_total{outcome="dead_letter"}` of `topic`, whatever the group."""
    return sum(
        sample.value
        for metric in REGISTRY.collect()
        for sample in metric.samples
        if sample.name == "printcloud_bus_consumed_total"
        and sample.labels.get("topic") == topic
        and sample.labels.get("outcome") == "dead_letter"
    )


def _waiting(consumer: str) -> float | None:
    return REGISTRY.get_sample_value("printcloud_dead_letters_waiting", {"consumer": consumer})


async def test_a_message_that_keeps_failing_is_set_aside_and_the_others_go_on(
    db: Database,
    database_url: str,
    broker: Broker,
    producer: Producer,
    topic: str,
    consuming: Consuming,
    capsys: pytest.CaptureFixture[str],
) -> None:
    handled: list[int] = []
    attempts: list[int] = []
    fixed = False

    async def handler(message: Message) -> None:
        if message.data["n"] == 0 and not fixed:
            attempts.append(0)
            raise RuntimeError("cannot take n=0")
        handled.append(message.data["n"])

    store = DeadLetters(db, MetaData(schema=SCHEMA))
    consuming(handler, store)
    await producer.send_many([_record(topic, n) for n in range(3)])

    await _until(lambda: handled == [1, 2], "the messages after the bad one")
    assert len(attempts) == MAX_ATTEMPTS
    [letter] = await store.list()
    assert (letter.topic, letter.partition, letter.offset, letter.attempts) == (topic, 0, 0, MAX_ATTEMPTS)
    assert letter.error == "RuntimeError: cannot take n=0"
    assert json.loads(letter.value)["data"] == {"n": 0}
    assert _dead_lettered(topic) == 1
    reporting = asyncio.create_task(store.report_waiting(letter.consumer, every_seconds=0.02))
    await _until(lambda: _waiting(letter.consumer) == 1, "the letter counted as waiting")

    assert await run_dead_letters_command(database_url, broker.bootstrap, SCHEMA, ["list"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(entry["id"], entry["type"]) for entry in listed] == [(str(letter.id), "thing.happened")]

    fixed = True  # the bug is fixed: the operator replays
    assert await run_dead_letters_command(database_url, broker.bootstrap, SCHEMA, ["replay", str(letter.id)]) == 0
    await _until(lambda: handled == [1, 2, 0], "the replayed message")
    assert await store.list() == []
    [replayed] = await store.list(include_replayed=True)
    assert replayed.replayed_at is not None
    await _until(lambda: _waiting(letter.consumer) == 0, "the replayed letter no longer waiting")
    reporting.cancel()
    await asyncio.gather(reporting, return_exceptions=True)
    assert await run_dead_letters_command(database_url, broker.bootstrap, SCHEMA, ["replay", "not-an-id"]) == 2


async def test_a_failure_of_what_handlers_depend_on_is_retried_until_it_passes(
    db: Database, producer: Producer, topic: str, consuming: Consuming
) -> None:
    failures_left = MAX_ATTEMPTS + 3
    handled: list[int] = []

    async def handler(message: Message) -> None:
        nonlocal failures_left
        if failures_left:
            failures_left -= 1
            raise ConnectionRefusedError("the database is restarting")
        handled.append(message.data["n"])

    store = DeadLetters(db, MetaData(schema=SCHEMA))
    consuming(handler, store)
    await producer.send_many([_record(topic, n) for n in range(2)])

    await _until(lambda: handled == [0, 1], "both messages, in order")
    assert await store.list() == []
