"""Spans and metrics of the shared clients, against a real PostgreSQL, broker and gRPC server:
SQL spans without parameters, the pool's use, gRPC status codes (internal errors too) and client
spans, Kafka producer spans continued by the consumer, consumer lag and the outbox backlog."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import grpc
import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import SpanKind
from opentelemetry.util.types import AttributeValue
from prometheus_client import REGISTRY
from sqlalchemy import MetaData, text

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.http.egress import EgressGuard, EgressRefused
from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.outbox import Outbox, OutboxRelay
from printcloud.core.telemetry.traces import carrier_headers, tracer
from printcloud.devstack.infrastructure import Broker
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.grpc_server import serving
from tests.support.receiver import Answer, Receiver, always
from tests.support.spans import RecordedSpans

SCHEMA = "instrumentation_test"


def _sample(name: str, **labels: str) -> float | None:
    return REGISTRY.get_sample_value(name, labels)


async def test_sql_spans_name_the_statement_and_never_its_parameters(db: Database, spans: RecordedSpans) -> None:
    secret = f"s3cret-{secrets.token_hex(8)}"
    with tracer().start_as_current_span("use case") as parent:
        async with db.read() as session:
            assert await session.scalar(text("SELECT length(:secret)"), {"secret": secret}) == len(secret)
    sql = [span for span in spans.named("SELECT") if span.kind is SpanKind.CLIENT]
    assert sql, [span.name for span in spans.all()]
    span = sql[-1]
    assert span.parent is not None and span.parent.span_id == parent.get_span_context().span_id
    assert span.attributes is not None and span.attributes["db.system.name"] == "postgresql"
    assert "length(" in str(span.attributes["db.query.text"])
    assert all(secret not in str(value) for s in spans.all() for value in (s.attributes or {}).values())


async def test_a_failed_statement_ends_its_span_as_an_error(db: Database, spans: RecordedSpans) -> None:
    with pytest.raises(Exception, match="no_such_table"):
        async with db.read() as session:
            await session.execute(text("SELECT * FROM no_such_table"))
    failed = [span for span in spans.named("SELECT") if not span.status.is_ok]
    assert failed and failed[-1].attributes is not None and failed[-1].attributes["error.type"]


async def test_the_pool_gauge_counts_connections_in_use(database_url: str) -> None:
    name = f"pool-{secrets.token_hex(4)}"
    db = Database.connect(database_url, application_name=name)
    try:
        async with db.read() as session:
            await session.execute(text("SELECT 1"))
            assert _sample("printcloud_db_pool_connections", pool=name, state="in_use") == 1
        assert _sample("printcloud_db_pool_connections", pool=name, state="in_use") == 0
        assert _sample("printcloud_db_pool_connections", pool=name, state="idle") == 1
        assert _sample("printcloud_db_pool_connections_max", pool=name) == 10
    finally:
        await db.close()


def _parent_id(span: ReadableSpan) -> int | None:
    return span.parent.span_id if span.parent is not None else None


def _attributes(span: ReadableSpan) -> Mapping[str, AttributeValue]:
    return span.attributes or {}


def _status_code(span: ReadableSpan) -> int:
    code = _attributes(span)["rpc.grpc.status_code"]
    assert isinstance(code, int)
    return code


class FailingJobs(jobs_pb2_grpc.JobsServicer):
    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        if request.id == "missing":
            raise ApiError("not_found", "No such print job.")
        if request.id == "bug":
            raise RuntimeError("a bug with a secret in its message: hunter2")
        return jobs_pb2.PrintJob(id=request.id)

    async def ReadJobFile(
        self, request: jobs_pb2.AgentJobRequest, context: rpc.ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        yield jobs_pb2.FileChunk(data=b"%PDF-")
        raise RuntimeError("broken storage")


@pytest.fixture
async def failing_jobs() -> AsyncIterator[jobs_pb2_grpc.JobsStub]:
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, FailingJobs()) as channel:
        yield jobs_pb2_grpc.JobsStub(channel)


async def test_grpc_calls_are_counted_by_their_real_status_code(failing_jobs: jobs_pb2_grpc.JobsStub) -> None:
    get_job = "/printcloud.v1.Jobs/GetJob"
    before = {code: _sample("printcloud_grpc_server_handled_total", method=get_job, code=code) or 0 for code in (
        "OK", "NOT_FOUND", "INTERNAL")}  # fmt: skip
    await rpc.call(failing_jobs.GetJob, jobs_pb2.GetJobRequest(id="fine"))
    with pytest.raises(ApiError) as missing:
        await rpc.call(failing_jobs.GetJob, jobs_pb2.GetJobRequest(id="missing"))
    with pytest.raises(ApiError) as bug:
        await rpc.call(failing_jobs.GetJob, jobs_pb2.GetJobRequest(id="bug"))
    assert missing.value.code == "not_found"
    # The caller learns that it failed, not how: the message stays in the server's log.
    assert bug.value.code == "internal_error" and "hunter2" not in bug.value.message
    for code in ("OK", "NOT_FOUND", "INTERNAL"):
        assert _sample("printcloud_grpc_server_handled_total", method=get_job, code=code) == before[code] + 1
    assert (_sample("printcloud_grpc_server_handling_seconds_count", method=get_job) or 0) >= 3


async def test_a_stream_that_breaks_counts_as_an_internal_error(failing_jobs: jobs_pb2_grpc.JobsStub) -> None:
    read_file = "/printcloud.v1.Jobs/ReadJobFile"
    before = _sample("printcloud_grpc_server_handled_total", method=read_file, code="INTERNAL") or 0
    with pytest.raises(ApiError) as broken:
        async for _ in rpc.stream(failing_jobs.ReadJobFile, jobs_pb2.AgentJobRequest()):
            pass
    assert broken.value.code == "internal_error"
    assert _sample("printcloud_grpc_server_handled_total", method=read_file, code="INTERNAL") == before + 1


async def test_a_grpc_client_span_is_the_parent_of_the_server_span(
    failing_jobs: jobs_pb2_grpc.JobsStub, spans: RecordedSpans
) -> None:
    with tracer().start_as_current_span("caller") as caller:
        await rpc.call(failing_jobs.GetJob, jobs_pb2.GetJobRequest(id="fine"))
        with pytest.raises(ApiError):
            await rpc.call(failing_jobs.GetJob, jobs_pb2.GetJobRequest(id="missing"))

    trace_id = caller.get_span_context().trace_id

    def finished(name: str, kind: SpanKind) -> list[Any]:
        return [s for s in spans.named(name) if s.kind is kind and s.context.trace_id == trace_id]

    # The server ends its span after its answer is sent, so the client's may be recorded first.
    async with asyncio.timeout(5):
        while (
            len(finished("printcloud.v1.Jobs/GetJob", SpanKind.CLIENT)) < 2
            or len(finished("/printcloud.v1.Jobs/GetJob", SpanKind.SERVER)) < 2
        ):
            await asyncio.sleep(0.01)
    clients = finished("printcloud.v1.Jobs/GetJob", SpanKind.CLIENT)
    servers = finished("/printcloud.v1.Jobs/GetJob", SpanKind.SERVER)
    assert all(c.context.trace_id == trace_id and _parent_id(c) == caller.get_span_context().span_id for c in clients)
    assert {_parent_id(s) for s in servers} == {c.context.span_id for c in clients}
    codes = sorted(_status_code(c) for c in clients)
    assert codes == [grpc.StatusCode.OK.value[0], grpc.StatusCode.NOT_FOUND.value[0]]


async def test_a_produced_message_is_a_span_that_the_consumer_continues(
    broker: Broker, epoch: BrokerEpoch, spans: RecordedSpans
) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    handled: asyncio.Queue[Message] = asyncio.Queue()

    async def handle(message: Message) -> None:
        await handled.put(message)

    producer = Producer(broker.bootstrap)
    await producer.start()
    group = f"g-{secrets.token_hex(4)}"
    consumer = Consumer(broker.bootstrap, group, [topic], handle, epoch)
    await consumer.start()
    running = asyncio.create_task(consumer.run())
    try:
        with tracer().start_as_current_span("use case") as origin:
            headers = carrier_headers()
        message = Message(type="thing.happened", organization_id="org", mode="test", data={})
        await producer.send_many([(topic, "k", message.encode(), headers)])
        await asyncio.wait_for(handled.get(), timeout=30)
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await consumer.stop()
        await producer.stop()
    (send,) = spans.named(f"send {topic}")
    assert send.kind is SpanKind.PRODUCER and _parent_id(send) == origin.get_span_context().span_id
    consume = [s for s in spans.named(f"consume {topic}") if s.kind is SpanKind.CONSUMER]
    assert consume and _parent_id(consume[0]) == send.context.span_id


async def test_consumer_lag_is_what_the_group_has_not_committed(broker: Broker, epoch: BrokerEpoch) -> None:
    topic = f"test-{secrets.token_hex(4)}"
    await ensure_topics(broker.bootstrap, [topic], partitions=1)
    release = asyncio.Event()

    async def stuck(_: Message) -> None:
        await release.wait()

    producer = Producer(broker.bootstrap)
    await producer.start()
    group = f"g-{secrets.token_hex(4)}"
    consumer = Consumer(broker.bootstrap, group, [topic], stuck, epoch)
    await consumer.start()
    running = asyncio.create_task(consumer.run())
    message = Message(type="thing.happened", organization_id="org", mode="test", data={}).encode()
    lag = {"group": group, "topic": topic, "partition": "0"}
    try:
        # One batch each: the embedded broker (Tansu) reports a log's end as its last batch's first
        # offset plus one, where Kafka counts every record of the batch.
        for _ in range(5):
            await producer.send_many([(topic, "k", message, {})])
        async with asyncio.timeout(30):
            while consumer._consumer is None or not consumer._consumer.assignment():
                await asyncio.sleep(0.05)
            await consumer._report_lag_once()
            assert _sample("printcloud_kafka_consumer_lag_messages", **lag) == 5, "the handler holds the first"
            release.set()
            while _sample("printcloud_kafka_consumer_lag_messages", **lag) != 0:
                await asyncio.sleep(0.05)
                await consumer._report_lag_once()
    finally:
        running.cancel()
        await asyncio.gather(running, return_exceptions=True)
        await consumer.stop()
        await producer.stop()


async def test_the_outbox_backlog_counts_unsent_rows_and_the_oldest_ones_age(
    db: Database, broker: Broker, epoch: BrokerEpoch, database_url: str
) -> None:
    outbox = Outbox(MetaData(schema=SCHEMA))
    producer = Producer(broker.bootstrap)
    relay = OutboxRelay(db, outbox, producer, database_url, epoch)
    async with db.transaction() as session:
        for n in range(3):
            message = Message(type="thing.happened", organization_id="org", mode="test", data={"n": n})
            await outbox.add(session, "topic", "k", message)
        await session.execute(text(f"UPDATE {SCHEMA}.outbox SET created_at = now() - interval '90 seconds'"))
    await relay.measure_backlog()
    assert _sample("printcloud_outbox_backlog_rows", schema=SCHEMA) == 3
    assert 90 <= (_sample("printcloud_outbox_oldest_unsent_age_seconds", schema=SCHEMA) or 0) < 120
    async with db.transaction() as session:
        await session.execute(text(f"UPDATE {SCHEMA}.outbox SET sent_at = now()"))
    await relay.measure_backlog()
    assert _sample("printcloud_outbox_backlog_rows", schema=SCHEMA) == 0
    assert _sample("printcloud_outbox_oldest_unsent_age_seconds", schema=SCHEMA) == 0


async def test_an_outbound_request_is_a_span_naming_neither_path_nor_query(spans: RecordedSpans) -> None:
    guard = EgressGuard(["127.0.0.1/32"])
    try:
        with Receiver(always(Answer(503))) as receiver:
            url = receiver.url("/hooks/secret-path") + "?token=s3cret"
            with tracer().start_as_current_span("deliver") as parent:
                response = await guard.request("POST", url, content=b"{}", timeout=5, max_body_bytes=1024)
            with pytest.raises(EgressRefused):
                await guard.request("POST", "http://10.0.0.1/?token=s3cret", timeout=5, max_body_bytes=1024)
    finally:
        await guard.aclose()
    assert response.status == 503
    sent, refused = spans.named("POST")
    assert sent.kind is SpanKind.CLIENT and _parent_id(sent) == parent.get_span_context().span_id
    assert _attributes(sent)["http.response.status_code"] == 503 and not sent.status.is_ok
    target = urlsplit(url)
    assert (_attributes(sent)["server.address"], _attributes(sent)["server.port"]) == (target.hostname, target.port)
    assert _attributes(refused)["error.type"] == "EgressRefused"
    assert all("secret" not in str(value) for span in (sent, refused) for value in _attributes(span).values())
    # No trace context leaves for a stranger.
    assert "traceparent" not in {name.lower() for name in receiver.received()[0].headers}
