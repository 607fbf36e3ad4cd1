"""Which life of the broker's log a process is talking to.

A broker can come back without its log: the embedded broker keeps it in memory, and a real
cluster can be rebuilt from scratch. Its topics, its consumer groups' offsets and every message
sent but not yet consumed are then gone, while PostgreSQL still holds each outbox row. The first
record of `BROKER_EPOCH` names the log's life; whoever finds that topic empty writes a new name.
Relays send again what they sent under another name (`OutboxRelay`), and every check recreates
missing topics, since a log that was lost took its topics with it.

A relay learns of a new life some time after it began, and sends into it meanwhile. Each message
it sends names the life it believed in (`EPOCH_HEADER`); a consumer handles one only once it has
read afresh that this life is still the log's (`BrokerEpoch.confirm`), and skips the others, which
their relay sends again, after the older rows, once it notices. A process's consumers share those
reads: one that begins after a consumer asked answers for it, whichever consumer it began for, and
it is made on a consumer of the epoch record kept open between reads. What those reads cost a
consumer is in docs/performance.md, "Speed machinery".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError

from printcloud.core.kafka.cluster import KafkaCluster, as_cluster
from printcloud.core.kafka.stopping import stop_to_the_end
from printcloud.core.kafka.topics import ALL_TOPICS, BROKER_EPOCH, PARTITIONS
from printcloud.core.periodic import run_periodically

log = logging.getLogger(__name__)

_EPOCH_PARTITION = TopicPartition(BROKER_EPOCH, 0)
_READ_TIMEOUT_MS = 2000
_CONFIRM_READ_SECONDS = 5.0

# The header naming the life of the log a relay sent the message to, as far as it knew.
EPOCH_HEADER = "printcloud-broker-epoch"


async def ensure_topics(
    kafka: KafkaCluster | str, topics: Sequence[str] = ALL_TOPICS, partitions: int = PARTITIONS
) -> None:
    """Creates those of `topics` and the epoch topic that do not exist, with the cluster's
    replication factor; the epoch topic keeps its record forever, or a real cluster's retention
    would start a new life every week."""
    cluster = as_cluster(kafka)
    replicas = cluster.topic_replication_factor
    admin = AIOKafkaAdminClient(**cluster.options())
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        missing = [NewTopic(t, partitions, replicas) for t in topics if t not in existing]
        if BROKER_EPOCH not in existing:
            missing.append(NewTopic(BROKER_EPOCH, 1, replicas, topic_configs={"retention.ms": "-1"}))
        if missing:
            # Another process may create them first.
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics(missing)
    finally:
        await admin.close()


class BrokerEpoch:
    def __init__(self, kafka: KafkaCluster | str, check_seconds: float = 5.0) -> None:
        self.kafka = as_cluster(kafka)
        self.check_seconds = check_seconds
        self.current: str | None = None
        self._listeners: list[Callable[[str], None]] = []
        self._held = _HeldReader(self.kafka)
        # Asked for by consumers since the read on its way began: answered by the next read.
        self._next_read: asyncio.Future[str] | None = None
        self._reading: asyncio.Task[None] | None = None

    @classmethod
    async def checked(cls, kafka: KafkaCluster | str, check_seconds: float) -> BrokerEpoch:
        """A watch that has checked once: the topics exist and the epoch is known. It holds no
        connection until a consumer asks it to confirm, so a process that fails to start after
        this check leaves none open."""
        epoch = cls(kafka, check_seconds)
        try:
            await epoch.check()
        finally:
            await epoch._held.close()
        return epoch

    def on_change(self, listener: Callable[[str], None]) -> None:
        self._listeners.append(listener)

    async def _read_or_start(self) -> str:
        epoch = await self._held.read()
        if epoch is None:
            await self._start_new_life()
            epoch = await self._held.read()
        if epoch is None:
            raise RuntimeError("the broker epoch could not be read back after writing it")
        return epoch

    async def _start_new_life(self) -> None:
        producer = AIOKafkaProducer(**self.kafka.options(), acks="all")
        await producer.start()
        try:
            await producer.send_and_wait(BROKER_EPOCH, str(uuid.uuid4()).encode(), partition=0)
        finally:
            await stop_to_the_end(producer)

    async def check(self) -> str:
        """Recreates missing topics, reads the epoch and tells the listeners when it changed."""
        await ensure_topics(self.kafka)
        epoch = await self._read_or_start()
        if epoch != self.current:
            if self.current is not None:
                log.warning("the broker lost its log; sending recent messages again", extra={"epoch": epoch})
            self.current = epoch
            for listener in self._listeners:
                listener(epoch)
        return epoch

    async def confirm(self) -> str:
        """The log's life as of now, read afresh: what was read from the log before this call was
        read from this life or an earlier one. A read already on its way when this is called
        began too early to answer for it; the next one does, for every caller waiting by then."""
        if self._next_read is None:
            self._next_read = asyncio.get_running_loop().create_future()
        answer = self._next_read
        if self._reading is None or self._reading.done():
            self._reading = asyncio.create_task(self._answer_waiting())
        # Shielded: a caller cancelled leaves the read to the others waiting for it.
        return await asyncio.shield(answer)

    async def _answer_waiting(self) -> None:
        while (answer := self._next_read) is not None:
            self._next_read = None  # whoever asks from now on waits for the next read
            try:
                answer.set_result(await self._confirm_once())
            except asyncio.CancelledError:
                answer.cancel()
                raise
            except Exception as error:  # noqa: BLE001 - each waiting caller gets it
                answer.set_exception(error)

    async def _confirm_once(self) -> str:
        """Reads only the epoch record while the life is unchanged; otherwise makes a whole check."""
        if self.current is not None:
            # A topic the new log lacks would hold the read for the client's request timeout.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_CONFIRM_READ_SECONDS):
                    if await self._held.read() == self.current:
                        return self.current
        return await self.check()

    async def close(self) -> None:
        if self._reading is not None:
            self._reading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reading
        await self._held.close()

    async def run(self) -> None:
        await asyncio.sleep(self.check_seconds)  # `checked` has just made the first check
        await run_periodically(self.check, self.check_seconds, "broker epoch check")


class _HeldReader:
    """A consumer of the epoch record kept open between reads, paused while unused so that it
    fetches nothing meanwhile: a read is then a seek and a fetch on a connection already open,
    where a fresh consumer costs a bootstrap, a metadata request and a connection besides (the
    figures are in docs/performance.md, "Speed machinery")."""

    def __init__(self, kafka: KafkaCluster) -> None:
        self.kafka = kafka
        self._consumer: AIOKafkaConsumer | None = None
        # The periodic check and the consumers' confirmations read on the same consumer, and
        # a seek made during another's fetch would answer that one from the wrong place.
        self._one_at_a_time = asyncio.Lock()

    async def read(self) -> str | None:
        """The epoch record, or None when the topic is empty or missing."""
        async with self._one_at_a_time:
            return await self._read()

    async def _read(self) -> str | None:
        consumer = self._consumer or await self._open()
        try:
            consumer.resume(_EPOCH_PARTITION)
            # A seek drops whatever was fetched before it: the record returned is fetched after it.
            consumer.seek(_EPOCH_PARTITION, 0)
            batch = await consumer.getmany(_EPOCH_PARTITION, timeout_ms=_READ_TIMEOUT_MS, max_records=1)
            consumer.pause(_EPOCH_PARTITION)
        except BaseException:
            await self.close()
            raise
        records = batch.get(_EPOCH_PARTITION)
        if not records:
            # A fetch of the empty log may still be on its way and answer a later read from
            # before it began: the next read starts on a consumer of its own.
            await self.close()
            return None
        value: bytes | None = records[0].value
        return value.decode() if value is not None else None

    async def _open(self) -> AIOKafkaConsumer:
        consumer = AIOKafkaConsumer(**self.kafka.options(), enable_auto_commit=False, auto_offset_reset="earliest")
        await consumer.start()
        consumer.assign([_EPOCH_PARTITION])
        self._consumer = consumer
        return consumer

    async def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            await stop_to_the_end(consumer)
