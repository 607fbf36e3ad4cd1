"""Kafka producer and consumer with the project's conventions: JSON `Message` values, trace
context and request id in headers, manual commits after the handler succeeded (at least once)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from typing import Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, ConsumerRecord, TopicPartition
from aiokafka.errors import KafkaError
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from prometheus_client import Counter, Gauge

from printcloud.contracts.errors import ApiError
from printcloud.core.db.outages import is_outage_error
from printcloud.core.kafka.broker_epoch import EPOCH_HEADER, BrokerEpoch
from printcloud.core.kafka.cluster import KafkaCluster, as_cluster
from printcloud.core.kafka.envelope import TYPE_HEADER, Message
from printcloud.core.kafka.stopping import stop_to_the_end
from printcloud.core.telemetry.traces import activate_carrier, tracer

log = logging.getLogger(__name__)

CONSUMED = Counter("printcloud_bus_consumed_total", "Kafka messages handled", ["group", "topic", "outcome"])
# Per partition this process consumes: the log's end minus the group's committed offset.
CONSUMER_LAG = Gauge(
    "printcloud_kafka_consumer_lag_messages",
    "Messages of a partition not yet handled and committed by the group",
    ["group", "topic", "partition"],
)
LAG_REPORT_SECONDS = 15.0
_LAG_MEASURE_SECONDS = 10.0
SKIPPED_STALE_EPOCH = Counter(
    "printcloud_kafka_messages_skipped_stale_epoch_total",
    "Messages skipped because their relay sent them to a life of the broker's log it had not noticed"
    " had begun; the relay sends them again once it notices",
    ["group", "topic"],
)

Handler = Callable[[Message], Awaitable[None]]
# The messages read in one poll, each partition's in order; all handled or none (one transaction).
BatchHandler = Callable[[Sequence[Message]], Awaitable[None]]
# A poll of more records than this (a backlog read after an outage) goes to the batch handler a
# partition at a time, as every poll once did: one transaction of a whole catch-up poll could hold
# many thousands of events.
MOST_TOGETHER = 1000
# Attempts at a message that fails for a reason of its own before it is set aside.
MAX_ATTEMPTS = 5
_FIRST_RETRY_SECONDS = 0.2
_LONGEST_RETRY_SECONDS = 10.0


class DeadLetterStore(Protocol):
    async def keep(
        self, consumer: str, record: ConsumerRecord[bytes, bytes], error: BaseException, attempts: int
    ) -> None: ...


def is_transient(error: BaseException) -> bool:
    """A failure of what handlers depend on (network, database, a backing service), which every
    message would meet, rather than one of the message's own."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, ApiError):
            return seen.status >= 500
        if is_outage_error(seen) or isinstance(seen, OSError | KafkaError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# How long a poll waits for messages before the consumer looks at the broker's epoch again.
_POLL_MS = 1000
# Handled offsets are committed at most this often, and when the member gives partitions up or
# stops: a commit is a round trip to the broker, once per poll it was most of what a message cost
# a consumer that skips it. A crash hands out again at most this long's messages, which every
# handler allows (each is idempotent by message id).
COMMIT_EVERY_SECONDS = 1.0
_EPOCH_RETRY_SECONDS = 1.0


class Producer:
    def __init__(self, kafka: KafkaCluster | str) -> None:
        self._producer = AIOKafkaProducer(**as_cluster(kafka).options(), acks="all", linger_ms=2)

    async def start(self) -> None:
        await self._producer.start()

    async def stop(self) -> None:
        await stop_to_the_end(self._producer)

    async def send_many(self, records: Sequence[tuple[str, str, bytes, Mapping[str, str]]]) -> None:
        """Sends (topic, key, value, headers) records and returns once the broker acknowledged all.

        Each record gets a producer span, a child of the trace its headers carry (the one that
        wrote the outbox row), and the headers sent carry that span on to the consumers.
        """
        spans: list[Span] = []
        futures = []
        try:
            for topic, key, value, headers in records:
                span = _send_span(topic, headers)
                spans.append(span)
                onward = dict(headers)
                propagate.inject(onward, context=trace.set_span_in_context(span))
                futures.append(
                    await self._producer.send(
                        topic, value=value, key=key.encode(), headers=[(k, v.encode()) for k, v in onward.items()]
                    )
                )
            await asyncio.gather(*futures)
        except BaseException as exc:
            for span in spans:
                span.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            raise
        finally:
            for span in spans:
                span.end()


def _send_span(topic: str, headers: Mapping[str, str]) -> Span:
    return tracer().start_span(
        f"send {topic}",
        context=propagate.extract(dict(headers)),
        kind=SpanKind.PRODUCER,
        attributes={
            "messaging.system": "kafka",
            "messaging.destination.name": topic,
            "messaging.operation.type": "send",
        },
    )


class Consumer:
    """Runs `handler` for each message of `topics`, in order per partition.

    A handler failing for a reason of the message's own is tried `MAX_ATTEMPTS` times, then the
    record goes to `dead_letters` (`printcloud.core.kafka.dead_letters`) and the partition moves on; one
    bad message never stops the others. A transient failure is retried until it passes.

    The group is named after the broker's epoch too (`printcloud.core.kafka.broker_epoch`): a broker
    that lost its log lost the group's offsets, and offsets committed into the new life by a member
    that had not noticed yet would point past or into the new log. A new life gets a new group,
    read from its start; every handler takes a message seen twice.

    A message names the life its relay sent it to (`EPOCH_HEADER`). One naming another life than
    the member's is skipped: its relay sent it to a log it had not noticed was new, and sends it
    again after the rows before it. One naming the member's life is handled only once a fresh read
    of the epoch, after it was read, shows that life is still the log's: the member may not have
    noticed the new log either. Unnamed messages (a dead letter replayed) are handled.
    """

    def __init__(
        self,
        kafka: KafkaCluster | str,
        group_id: str,
        topics: Sequence[str],
        handler: Handler,
        epoch: BrokerEpoch,
        *,
        start_at_end: bool = False,
        dead_letters: DeadLetterStore | None = None,
        first_retry_seconds: float = _FIRST_RETRY_SECONDS,
        batch_handler: BatchHandler | None = None,
        wants: Callable[[str], bool] | None = None,
    ) -> None:
        """`start_at_end` suits a group that lives only as long as one process: it skips what was
        sent before the process started, but reads a log begun again later from its start.

        Without `dead_letters` (a process with no database of its own), a message that keeps
        failing is logged as an error and dropped after its attempts.

        With `batch_handler`, the messages read in one poll go to it together, every partition's in
        one call, each partition's in their order: one transaction, where a message costs a few
        statements instead of a transaction of its own, and a poll one transaction instead of one a
        partition (a poll of more than `MOST_TOGETHER` goes a partition at a time). When that call
        fails, each partition's messages go to it again on their own, and when one of those fails,
        its messages are handled one by one by `handler`, with one message's retries and dead
        letters, so a poisoned message holds up no more than itself. Both handlers must be
        idempotent by message id, as every handler here is.

        With `wants`, a message whose type header (`TYPE_HEADER`) it refuses is passed over without
        being decoded or handled: on a topic shared by every service, most messages are another
        service's business. One without the header (sent by an earlier release) is handled."""
        self.kafka = as_cluster(kafka)
        self.group_id = group_id
        self.handler = handler
        self.batch_handler = batch_handler
        self.wants = wants
        self.topics = list(topics)
        self.epoch = epoch
        self._start_at_end = start_at_end
        self.dead_letters = dead_letters
        self.first_retry_seconds = first_retry_seconds
        self._consumer: AIOKafkaConsumer | None = None
        self._life: str | None = None
        # Set once the member was first given its partitions (possibly none: more members than
        # partitions): a process is ready only then, so a rolling update stops the member it
        # replaces once the group has made room for this one, not in the middle of that rebalance.
        self.joined = asyncio.Event()
        self._lag_labels: set[tuple[str, str, str]] = set()
        # Where a start-at-end member began reading each partition, before it commits anything.
        self._start_positions: dict[TopicPartition, int] = {}
        # The next offset of each partition whose records are handled but not yet committed.
        self._handled: dict[TopicPartition, int] = {}
        self._committed_at = time.monotonic()

    async def start(self) -> None:
        self._life = self.epoch.current
        self._consumer = AIOKafkaConsumer(
            **self.kafka.options(),
            group_id=f"{self.group_id}.{self._life}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
        )
        await self._consumer.start()
        skip_to_end = self._start_at_end
        listener = _FirstAssignment(
            self._consumer, self._start_positions, self.joined, skip_to_end, self.commit_handled
        )
        self._start_at_end = False  # only the process's first life skips what came before
        self._consumer.subscribe(self.topics, listener=listener)
        if skip_to_end:
            # Whatever is sent from now on is read: a caller that acts only on what comes after
            # it started (an agent connected now) can rely on it once this returns.
            await listener.positioned.wait()

    async def stop(self) -> None:
        if self._consumer is not None:
            try:
                await self.commit_handled(self._consumer)
            finally:
                await stop_to_the_end(self._consumer)

    async def commit_handled(
        self, consumer: AIOKafkaConsumer, partitions: Collection[TopicPartition] | None = None
    ) -> None:
        """Commits the handled records' offsets (of `partitions` only, when given); one that fails
        is kept to be committed next time."""
        offsets = {p: offset for p, offset in self._handled.items() if partitions is None or p in partitions}
        if not offsets:
            return
        try:
            await consumer.commit(offsets)
        except KafkaError:
            log.warning("offset commit failed; continuing", exc_info=True)
            return
        for partition, offset in offsets.items():
            if self._handled.get(partition) == offset:
                del self._handled[partition]
        self._committed_at = time.monotonic()

    async def report_lag(self, every_seconds: float = LAG_REPORT_SECONDS) -> None:
        """Sets `printcloud_kafka_consumer_lag_messages` for the partitions assigned to this member,
        forever. Asked of the broker rather than read from fetches, so a handler stuck on one
        message shows as a lag that grows."""
        while True:
            try:
                # Bounded: aiokafka's committed() retries for ever once its consumer is stopped
                # while the call waits on the coordinator (a new life replaces the consumer), and
                # the gauge would keep that moment's figures for good.
                async with asyncio.timeout(max(every_seconds, _LAG_MEASURE_SECONDS)):
                    await self._report_lag_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("consumer lag not measured; will retry", extra={"group": self.group_id}, exc_info=True)
            await asyncio.sleep(every_seconds)

    async def _report_lag_once(self) -> None:
        consumer = self._consumer
        if consumer is None:
            return
        partitions = sorted(consumer.assignment(), key=lambda tp: (tp.topic, tp.partition))
        ends = await consumer.end_offsets(partitions) if partitions else {}
        starts = await consumer.beginning_offsets(partitions) if partitions else {}
        reported = set()
        for partition in partitions:
            committed = await consumer.committed(partition)
            # Nothing committed yet: where the group reads from (the log's start, or where it skipped to).
            done = committed if committed is not None else self._start_positions.get(partition, starts[partition])
            labels = (self.group_id, partition.topic, str(partition.partition))
            CONSUMER_LAG.labels(*labels).set(max(ends[partition] - done, 0))
            reported.add(labels)
        # Partitions moved to another member are that member's to report.
        for labels in self._lag_labels - reported:
            CONSUMER_LAG.remove(*labels)
        self._lag_labels = reported

    async def _handle(self, record: ConsumerRecord[bytes, bytes], headers: Mapping[str, str]) -> None:
        # No value (a tombstone) is as undecodable as a value that is not JSON.
        message = Message.decode(record.value or b"")
        delay = self.first_retry_seconds
        attempts = 0
        while True:
            with activate_carrier(headers, f"consume {record.topic}", SpanKind.CONSUMER):
                try:
                    await self.handler(message)
                    CONSUMED.labels(self.group_id, record.topic, "ok").inc()
                    return
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    attempts += 1
                    if (
                        not is_transient(error)
                        and attempts >= MAX_ATTEMPTS
                        and await self._set_aside(record, error, attempts)
                    ):
                        return
                    CONSUMED.labels(self.group_id, record.topic, "retry").inc()
                    log.exception("handler failed; retrying", extra={"message_id": message.id, "type": message.type})
            await asyncio.sleep(delay)
            delay = min(delay * 2, _LONGEST_RETRY_SECONDS)

    async def _set_aside(self, record: ConsumerRecord[bytes, bytes], error: BaseException, attempts: int) -> bool:
        """Keeps the record as a dead letter; False if it could not be kept (it is retried then)."""
        where = {"topic": record.topic, "partition": record.partition, "offset": record.offset, "attempts": attempts}
        if self.dead_letters is None:
            CONSUMED.labels(self.group_id, record.topic, "dropped").inc()
            log.error("message dropped after its attempts", extra=where, exc_info=error)
            return True
        try:
            await self.dead_letters.keep(self.group_id, record, error, attempts)
        except Exception:
            log.warning("dead letter not stored; retrying the message", extra=where, exc_info=True)
            return False
        CONSUMED.labels(self.group_id, record.topic, "dead_letter").inc()
        log.error("message set aside as a dead letter", extra=where, exc_info=error)
        return True

    async def _handle_together(self, batches: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]]) -> bool:
        """The records of `batches`, each partition's in order, in one call of the batch handler;
        False, with nothing handled, when one does not decode, names another life of the log (rare:
        `_consume` skips it and counts it) or the handler fails, so that they are handled again in
        smaller parts."""
        assert self.batch_handler is not None
        records = [record for partition_records in batches.values() for record in partition_records]
        if any(_epoch_named(record) not in (None, self._life) for record in records):
            return False
        try:
            messages = [Message.decode(record.value or b"") for record in records]
        except (ValueError, KeyError):
            return False
        topics = sorted({partition.topic for partition, partition_records in batches.items() if partition_records})
        # One span for the batch, linked to the trace each message came with.
        carriers = ({k: v.decode() for k, v in (record.headers or ())} for record in records)
        contexts = (trace.get_current_span(propagate.extract(carrier)).get_span_context() for carrier in carriers)
        links = [trace.Link(context) for context in contexts if context.is_valid]
        name = f"consume {', '.join(topics)}"
        with tracer().start_as_current_span(name, kind=SpanKind.CONSUMER, links=links) as span:
            span.set_attribute("messaging.batch.message_count", len(messages))
            try:
                await self.batch_handler(messages)
            except asyncio.CancelledError:
                raise
            except Exception:
                where = {"group": self.group_id, "topics": topics, "messages": len(messages)}
                log.warning("a batch failed; its messages are handled in smaller parts", extra=where, exc_info=True)
                return False
        for partition, partition_records in batches.items():
            if partition_records:
                CONSUMED.labels(self.group_id, partition.topic, "ok").inc(len(partition_records))
        return True

    async def _consume(self, record: ConsumerRecord[bytes, bytes]) -> None:
        headers = {k: v.decode() for k, v in (record.headers or ())}
        if self._sent_to_another_life(record, headers):
            return
        try:
            await self._handle(record, headers)
        except (ValueError, KeyError) as undecodable:
            # A message that cannot be decoded never will be: set aside at once.
            CONSUMED.labels(self.group_id, record.topic, "malformed").inc()
            await self._set_aside(record, undecodable, 1)

    def _sent_to_another_life(self, record: ConsumerRecord[bytes, bytes], headers: Mapping[str, str]) -> bool:
        life = headers.get(EPOCH_HEADER)
        if life is None or life == self._life:
            return False
        SKIPPED_STALE_EPOCH.labels(self.group_id, record.topic).inc()
        log.info(
            "message sent to another life of the broker's log skipped; its relay sends it again",
            extra={"group": self.group_id, "topic": record.topic, "offset": record.offset, "sent_to": life},
        )
        return True

    async def _in_current_life(self, wanted: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]]) -> bool:
        """Whether the log the `wanted` records were read from still lives the member's life, asked
        of the broker afresh when one of them names that life: a poll of other services' events
        only costs no read of the epoch."""
        records = (record for partition_records in wanted.values() for record in partition_records)
        if self._life is None or all(_epoch_named(record) != self._life for record in records):
            return True
        while True:
            try:
                return await self.epoch.confirm() == self._life
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("broker epoch not read; retrying", extra={"group": self.group_id}, exc_info=True)
                await asyncio.sleep(_EPOCH_RETRY_SECONDS)

    async def _consume_poll(
        self,
        batches: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]],
        wanted: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]],
    ) -> None:
        """A poll's `wanted` records (of its `batches`), then each partition noted as handled up to
        its last record. Order matters only within a partition: a resource's messages share its key."""
        with_records = [records for records in wanted.values() if records]
        together = len(with_records) > 1 and sum(map(len, with_records)) <= MOST_TOGETHER
        if self.batch_handler is not None and together and await self._handle_together(wanted):
            for partition, records in batches.items():
                self._handled[partition] = records[-1].offset + 1
            return
        # Partitions side by side, so one slow handler does not hold up every tenant behind it.
        await asyncio.gather(
            *(
                self._consume_partition(partition, wanted[partition], up_to=records[-1].offset + 1)
                for partition, records in batches.items()
            )
        )

    async def _consume_partition(
        self, partition: TopicPartition, records: list[ConsumerRecord[bytes, bytes]], up_to: int
    ) -> None:
        """A partition's wanted records in order, then the partition noted as handled `up_to` that
        offset, to be committed together with later polls' (`COMMIT_EVERY_SECONDS`): a crash in
        between hands them out again, which every handler allows (each is idempotent by message id)."""
        together = self.batch_handler is not None and len(records) > 1
        if not (together and await self._handle_together({partition: records})):
            for record in records:
                await self._consume(record)
        self._handled[partition] = up_to

    def _wanted(
        self, batches: Mapping[TopicPartition, list[ConsumerRecord[bytes, bytes]]]
    ) -> dict[TopicPartition, list[ConsumerRecord[bytes, bytes]]]:
        """Each partition's records whose type header `wants` takes, and those without the header."""
        wants = self.wants
        if wants is None:
            return dict(batches)
        return {
            partition: [
                record
                for record in records
                if (kind := next((v for k, v in (record.headers or ()) if k == TYPE_HEADER), None)) is None
                or wants(kind.decode())
            ]
            for partition, records in batches.items()
        }

    async def run(self) -> None:
        while True:
            consumer = self._consumer
            assert consumer is not None, "start() first"
            while self.epoch.current == self._life:
                batches = await consumer.getmany(timeout_ms=_POLL_MS)
                wanted = self._wanted(batches)
                if not await self._in_current_life(wanted):
                    break  # neither handled nor committed: the new life's group reads them again
                await self._consume_poll(batches, wanted)
                if time.monotonic() - self._committed_at >= COMMIT_EVERY_SECONDS:
                    await self.commit_handled(consumer)
            # The old life's offsets mean nothing to the new life's group, which reads from the start.
            self._handled.clear()
            log.warning("the broker began a new log; reading it from its start", extra={"group": self.group_id})
            await stop_to_the_end(consumer)
            await self.start()


def _epoch_named(record: ConsumerRecord[bytes, bytes]) -> str | None:
    return next((v.decode() for k, v in (record.headers or ()) if k == EPOCH_HEADER), None)


class _FirstAssignment(ConsumerRebalanceListener):
    """Notes the member's first assignment (`joined`); with `skip_to_end`, moves to the end of the
    partitions first assigned, skipping what was sent before."""

    def __init__(
        self,
        consumer: AIOKafkaConsumer,
        positions: dict[TopicPartition, int],
        joined: asyncio.Event,
        skip_to_end: bool,
        commit_handled: Callable[[AIOKafkaConsumer, Collection[TopicPartition]], Awaitable[None]],
    ) -> None:
        self.commit_handled = commit_handled
        self.consumer = consumer
        self.positions = positions
        self.joined = joined
        self.skip_to_end = skip_to_end
        self.positioned = asyncio.Event()

    async def on_partitions_revoked(self, revoked: list[TopicPartition]) -> None:
        # What this member handled is committed before another member starts where it left off.
        await self.commit_handled(self.consumer, revoked)

    async def on_partitions_assigned(self, assigned: list[TopicPartition]) -> None:
        self.joined.set()
        if self.skip_to_end and assigned and not self.positioned.is_set():
            await self.consumer.seek_to_end(*assigned)
            for partition in assigned:
                # Resolves the end now: a lazy seek would be resolved at the first fetch, later.
                self.positions[partition] = await self.consumer.position(partition)
            self.positioned.set()
