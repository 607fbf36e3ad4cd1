"""The consumer against a real broker: a group that starts at the end skips what came before it,
and once the broker lost its log, every group reads the new log from its start. Without one: which
messages it handles, by the life of the broker's log they name."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from pathlib import Path

import pytest
from aiokafka import ConsumerRecord, TopicPartition
from aiokafka.errors import KafkaError
from prometheus_client import REGISTRY

from printcloud.core.kafka import bus
from printcloud.core.kafka.broker_epoch import EPOCH_HEADER, BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer, Handler, Producer
from printcloud.core.kafka.envelope import TYPE_HEADER, Message
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
        await epoch.close()
        await producer.stop()
        broker.stop()


class _Epoch(BrokerEpoch):
    """A watch that believes in `life-1`, while the broker, asked afresh, names `now`."""

    def __init__(self, now: str) -> None:
        super().__init__("127.0.0.1:9")
        self.current = "life-1"
        self.now = now
        self.confirmations = 0

    async def confirm(self) -> str:
        self.confirmations += 1
        return self.now


def _read(n: int, life: str | None) -> ConsumerRecord[bytes, bytes]:
    _, key, value, _ = _record("t", n)
    headers = [(EPOCH_HEADER, life.encode())] if life is not None else []
    return ConsumerRecord("t", 0, n, 0, 0, key.encode(), value, None, len(key), len(value), headers)


def _member(now: str) -> tuple[Consumer, _Epoch, list[int]]:
    handled: list[int] = []

    async def handle(message: Message) -> None:
        handled.append(message.data["n"])

    epoch = _Epoch(now)
    consumer = Consumer("127.0.0.1:9", "g-lives", ["t"], handle, epoch)
    consumer._life = epoch.current  # as start() does, without a broker
    return consumer, epoch, handled


def _skipped() -> float:
    return (
        REGISTRY.get_sample_value(
            "printcloud_kafka_messages_skipped_stale_epoch_total", {"group": "g-lives", "topic": "t"}
        )
        or 0.0
    )


async def test_a_message_naming_another_life_is_skipped_and_counted_and_an_unnamed_one_handled() -> None:
    consumer, epoch, handled = _member(now="life-1")
    before = _skipped()
    batch = {TopicPartition("t", 0): [_read(0, "life-0"), _read(1, None)]}

    assert await consumer._in_current_life(consumer._wanted(batch))
    assert epoch.confirmations == 0, "nothing to handle that names the member's life: no read of the epoch"
    for record in batch[TopicPartition("t", 0)]:
        await consumer._consume(record)
    assert handled == [1]
    assert _skipped() == before + 1


async def test_a_message_naming_the_members_life_is_handled_once_the_broker_confirms_that_life() -> None:
    consumer, epoch, handled = _member(now="life-1")
    record = _read(0, "life-1")

    assert await consumer._in_current_life({TopicPartition("t", 0): [record]})
    assert epoch.confirmations == 1
    await consumer._consume(record)
    assert handled == [0]


async def test_a_poll_of_messages_of_no_interest_costs_no_read_of_the_epoch() -> None:
    consumer, epoch, _ = _member(now="life-1")
    consumer.wants = lambda kind: kind == "printer.updated"
    unwanted = [_typed(0, "printjob.done", "life-1"), _typed(1, "printjob.sent", "life-1")]

    assert await consumer._in_current_life(consumer._wanted({TopicPartition("t", 0): unwanted}))
    assert epoch.confirmations == 0
    assert await consumer._in_current_life(
        consumer._wanted({TopicPartition("t", 0): [*unwanted, _typed(2, "printer.updated", "life-1")]})
    )
    assert epoch.confirmations == 1, "one to handle: its life is confirmed"


async def test_a_batch_read_from_a_log_in_a_new_life_is_not_handled_in_the_old_one() -> None:
    consumer, _, _ = _member(now="life-2")
    assert not await consumer._in_current_life({TopicPartition("t", 0): [_read(0, "life-1")]}), (
        "the member's group is the old life's: it must begin the new one, from its start"
    )


async def _consume_polled(
    consumer: Consumer, partition: TopicPartition, records: list[ConsumerRecord[bytes, bytes]]
) -> None:
    """What `Consumer.run` does with one partition's records of a poll."""
    wanted = consumer._wanted({partition: records})[partition]
    await consumer._consume_partition(partition, wanted, up_to=records[-1].offset + 1)


class _Commits:
    """Stands for the Kafka consumer where a partition's records are handled: commits are recorded."""

    def __init__(self) -> None:
        self.offsets: list[dict[TopicPartition, int]] = []

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        self.offsets.append(offsets)


def _batching_member(fail_batches: bool = False) -> tuple[Consumer, list[int], list[list[int]]]:
    consumer, _, alone = _member(now="life-1")
    together: list[list[int]] = []

    async def handle_batch(messages: Sequence[Message]) -> None:
        if fail_batches:
            raise RuntimeError("the batch's transaction failed")
        together.append([message.data["n"] for message in messages])

    consumer.batch_handler = handle_batch
    return consumer, alone, together


async def test_a_partitions_records_of_one_poll_go_to_the_batch_handler_in_one_call_in_order() -> None:
    consumer, alone, together = _batching_member()
    commits = _Commits()
    partition = TopicPartition("t", 0)
    await _consume_polled(consumer, partition, [_read(n, "life-1") for n in range(3)])
    assert together == [[0, 1, 2]]
    assert alone == []
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{partition: 3}]


async def test_a_failed_batch_is_handled_again_one_message_at_a_time() -> None:
    consumer, alone, together = _batching_member(fail_batches=True)
    commits = _Commits()
    partition = TopicPartition("t", 0)
    await _consume_polled(consumer, partition, [_read(n, None) for n in range(3)])
    assert together == []
    assert alone == [0, 1, 2]
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{partition: 3}]


async def test_a_batch_naming_another_life_goes_one_by_one_and_skips_that_one_once() -> None:
    consumer, alone, together = _batching_member()
    before = _skipped()
    records = [_read(0, "life-1"), _read(1, "life-0"), _read(2, None)]
    await _consume_polled(consumer, TopicPartition("t", 0), records)
    assert together == []
    assert alone == [0, 2]
    assert _skipped() == before + 1


async def test_a_polls_records_of_several_partitions_go_to_the_batch_handler_in_one_call() -> None:
    consumer, alone, together = _batching_member()
    one, other = TopicPartition("t", 0), TopicPartition("t", 1)
    batches = {one: [_read(n, "life-1") for n in range(3)], other: [_read(n, None) for n in (10, 11)]}
    await consumer._consume_poll(batches, consumer._wanted(batches))
    assert together == [[0, 1, 2, 10, 11]], "one call, each partition's messages in their order"
    assert alone == []
    commits = _Commits()
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{one: 3, other: 12}]


async def test_a_poll_of_more_than_a_call_takes_goes_a_partition_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bus, "MOST_TOGETHER", 4)
    consumer, alone, together = _batching_member()
    one, other = TopicPartition("t", 0), TopicPartition("t", 1)
    batches = {one: [_read(n, None) for n in range(3)], other: [_read(n, None) for n in (10, 11)]}
    await consumer._consume_poll(batches, consumer._wanted(batches))
    assert sorted(together) == [[0, 1, 2], [10, 11]]
    assert alone == []


async def test_a_polls_failed_batch_goes_again_partition_by_partition_then_one_by_one() -> None:
    consumer, alone, together = _batching_member()
    poison = 99

    async def handle_batch(messages: Sequence[Message]) -> None:
        numbers = [message.data["n"] for message in messages]
        if poison in numbers:
            raise RuntimeError("a message the batch's transaction cannot take")
        together.append(numbers)

    consumer.batch_handler = handle_batch
    one, other = TopicPartition("t", 0), TopicPartition("t", 1)
    batches = {one: [_read(n, None) for n in range(3)], other: [_read(n, None) for n in (10, poison, 11)]}
    await consumer._consume_poll(batches, consumer._wanted(batches))
    assert together == [[0, 1, 2]], "the partition without the poisoned message still goes in one call"
    assert alone == [10, poison, 11], "the poisoned message holds up no more than its own partition"
    commits = _Commits()
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{one: 3, other: 12}]


async def test_a_lone_record_goes_to_the_message_handler() -> None:
    consumer, alone, together = _batching_member()
    await _consume_polled(consumer, TopicPartition("t", 0), [_read(7, None)])
    assert (alone, together) == ([7], [])


async def test_handled_offsets_wait_for_one_commit_and_a_failed_commit_keeps_them() -> None:
    consumer, _, _ = _batching_member()
    one, other = TopicPartition("t", 0), TopicPartition("t", 1)
    await _consume_polled(consumer, one, [_read(0, None)])
    await _consume_polled(consumer, one, [_read(1, None)])
    await _consume_polled(consumer, other, [_read(5, None)])

    class Refusing(_Commits):
        async def commit(self, offsets: dict[TopicPartition, int]) -> None:
            raise KafkaError("the coordinator moved")

    await consumer.commit_handled(Refusing())  # type: ignore[arg-type]
    commits = _Commits()
    await consumer.commit_handled(commits, [other])  # type: ignore[arg-type]
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{other: 6}, {one: 2}], "one commit for both polls of a partition, nothing twice"


def _typed(n: int, kind: str | None, life: str | None = None) -> ConsumerRecord[bytes, bytes]:
    record = _read(n, life)
    headers = [*record.headers, *([(TYPE_HEADER, kind.encode())] if kind is not None else [])]
    return ConsumerRecord("t", 0, n, 0, 0, record.key, record.value, None, 0, 0, headers)


@pytest.mark.parametrize("batched", [False, True])
async def test_messages_of_no_interest_are_passed_over_and_still_committed(batched: bool) -> None:
    consumer, alone, together = _batching_member()
    if not batched:
        consumer.batch_handler = None
    consumer.wants = lambda kind: kind == "printer.updated"
    records = [_typed(0, "printjob.done"), _typed(1, "printer.updated"), _typed(2, None), _typed(3, "printjob.sent")]
    await _consume_polled(consumer, TopicPartition("t", 0), records)
    assert (together if batched else [alone]) == [[1, 2]], "a message without the header is handled"
    commits = _Commits()
    await consumer.commit_handled(commits)  # type: ignore[arg-type]
    assert commits.offsets == [{TopicPartition("t", 0): 4}]
