"""gRPC calls of every kind carry the request id and trace context, and a service's `ApiError`
comes back as itself, over a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import read_upload, upload_parts
from printcloud.core import rpc
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_var
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.dns_stub import dns_stub
from tests.support.grpc_server import serving


class RecordingJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self) -> None:
        self.request_ids: dict[str, str | bytes | None] = {}

    def _record(self, name: str, context: rpc.ServicerContext) -> None:
        self.request_ids[name] = dict(context.invocation_metadata() or ()).get(REQUEST_ID_HEADER)

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        self._record("unary", context)
        raise ApiError("not_found", "No such print job.")

    async def ReadJobFile(
        self, request: jobs_pb2.AgentJobRequest, context: rpc.ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        self._record("server stream", context)
        yield jobs_pb2.FileChunk(data=b"%PDF-")

    async def CreateJob(
        self, parts: AsyncIterator[jobs_pb2.CreateJobPart], context: rpc.ServicerContext
    ) -> jobs_pb2.CreateJobResponse:
        self._record("client stream", context)
        request, document = await read_upload(parts)
        return jobs_pb2.CreateJobResponse(job=jobs_pb2.PrintJob(title=request.title, file_size=len(document or b"")))


@pytest.fixture
async def jobs() -> AsyncIterator[tuple[RecordingJobs, jobs_pb2_grpc.JobsStub]]:
    servicer = RecordingJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, servicer) as channel:
        yield servicer, jobs_pb2_grpc.JobsStub(channel)


async def test_every_kind_of_call_carries_the_request_id(jobs: tuple[RecordingJobs, jobs_pb2_grpc.JobsStub]) -> None:
    servicer, stub = jobs
    token = request_id_var.set("req-123")
    try:
        with pytest.raises(ApiError) as raised:
            await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(id="x"))
        chunks = [chunk.data async for chunk in rpc.stream(stub.ReadJobFile, jobs_pb2.AgentJobRequest())]
        document = b"%PDF-" + b"x" * 3_000_000
        created = await rpc.call(stub.CreateJob, upload_parts(jobs_pb2.CreateJobRequest(title="t"), document))
    finally:
        request_id_var.reset(token)
    assert raised.value.code == "not_found"
    assert chunks == [b"%PDF-"]
    assert (created.job.title, created.job.file_size) == ("t", len(document))
    assert servicer.request_ids == {"unary": "req-123", "server stream": "req-123", "client stream": "req-123"}


class NamedJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self, name: str) -> None:
        self.name = name

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        return jobs_pb2.PrintJob(title=self.name)


async def test_a_dns_target_spreads_calls_over_every_address_of_its_name() -> None:
    """Two replicas behind one name (a headless Service): round robin reaches both, where gRPC's
    default policy would send every call to the first it connected to."""
    first = rpc.create_server()
    jobs_pb2_grpc.add_JobsServicer_to_server(NamedJobs("first"), first)
    port = await rpc.start_server(first, "127.0.0.1:0")
    second = rpc.create_server()
    jobs_pb2_grpc.add_JobsServicer_to_server(NamedJobs("second"), second)
    await rpc.start_server(second, f"127.0.0.2:{port}")
    answered: list[str] = []
    try:
        with dns_stub({"jobs.printcloud.test": ["127.0.0.1", "127.0.0.2"]}) as dns_port:
            channel = rpc.channel(f"dns://127.0.0.1:{dns_port}/jobs.printcloud.test:{port}")
            try:
                stub = jobs_pb2_grpc.JobsStub(channel)
                # The second connection may come up a moment after the first: call until both
                # answered, within a bound no working balancer needs.
                while len(answered) < 50 and {"first", "second"} - set(answered):
                    answered.append((await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest())).title)
                answered += [(await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest())).title for _ in range(10)]
            finally:
                await channel.close()
    finally:
        await first.stop(None)
        await second.stop(None)
    assert {"first", "second"} <= set(answered)
    # Once both are connected, calls alternate.
    assert sorted(answered[-10:]) == ["first"] * 5 + ["second"] * 5


async def test_a_service_whose_every_address_changed_is_found_again_within_seconds() -> None:
    """Every replica of a service replaced moments after its caller resolved the name (an upgrade
    restarts both): the channel resolves the name again within seconds of the old address failing,
    where gRPC's default waits until 30 s after the last resolution and fails every call meanwhile."""
    old, port = await _serve_named("old", "127.0.0.1:0")
    names = {"jobs.printcloud.invalid": ["127.0.0.1"]}
    try:
        with dns_stub(names) as dns_port:
            channel = rpc.channel(f"dns://127.0.0.1:{dns_port}/jobs.printcloud.invalid:{port}")
            try:
                stub = jobs_pb2_grpc.JobsStub(channel)
                assert (await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest())).title == "old"
                new, _ = await _serve_named("new", f"127.0.0.2:{port}")
                names["jobs.printcloud.invalid"] = ["127.0.0.2"]
                await old.stop(None)
                try:
                    answered, replaced = None, time.monotonic()
                    while answered != "new" and time.monotonic() - replaced < 10:
                        try:
                            answered = (await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(), timeout=0.5)).title
                        except ApiError:
                            await asyncio.sleep(0.1)
                finally:
                    await new.stop(None)
            finally:
                await channel.close()
    finally:
        await old.stop(None)
    assert answered == "new"


async def _serve_named(name: str, address: str) -> tuple[grpc.aio.Server, int]:
    server = rpc.create_server()
    jobs_pb2_grpc.add_JobsServicer_to_server(NamedJobs(name), server)
    return server, await rpc.start_server(server, address)


async def test_a_new_channel_does_not_inherit_another_channels_reconnect_backoff() -> None:
    """A channel still open to a stopped server waits out a reconnect backoff. A new channel to a
    server now started on that address answers at once: with gRPC's process-wide subchannel pool it
    shared the stale connection's state and failed fast with UNAVAILABLE (a test's server on a
    recycled port 0 did, once in a CI run)."""
    stopped, port = await _serve_named("stopped", "127.0.0.1:0")
    stale = rpc.channel(f"127.0.0.1:{port}")
    try:
        assert (await rpc.call(jobs_pb2_grpc.JobsStub(stale).GetJob, jobs_pb2.GetJobRequest())).title == "stopped"
        await stopped.stop(None)
        restarted, _ = await _serve_named("restarted", f"127.0.0.1:{port}")
        fresh = rpc.channel(f"127.0.0.1:{port}")
        try:
            answer = await rpc.call(jobs_pb2_grpc.JobsStub(fresh).GetJob, jobs_pb2.GetJobRequest())
        finally:
            await fresh.close()
            await restarted.stop(None)
    finally:
        await stale.close()
    assert answer.title == "restarted"


async def test_a_channel_tries_a_server_that_is_down_again_within_two_seconds() -> None:
    """A peer that accepts connections and drops them before gRPC's handshake is down for the
    channel. Its attempts come at most about 2 s apart (the cap, with gRPC's jitter of a fifth and
    a busy machine's lateness) over 16 s, a span in which gRPC's own backoff (1 s growing 1.6
    times a try) leaves a gap of more than 5 s."""
    attempts: list[float] = []

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        attempts.append(time.monotonic())
        writer.close()

    down = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = down.sockets[0].getsockname()[1]
    channel = rpc.channel(f"127.0.0.1:{port}")
    stub = jobs_pb2_grpc.JobsStub(channel)
    started = time.monotonic()
    try:
        while time.monotonic() - started < 16:
            with pytest.raises(ApiError):
                await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(), timeout=0.2)
            await asyncio.sleep(0.1)
        ended = time.monotonic()
    finally:
        await channel.close()
        down.close()
        await down.wait_closed()
    assert attempts
    gaps = [later - earlier for earlier, later in zip(attempts, [*attempts[1:], ended], strict=True)]
    assert max(gaps) < 4.0, [round(gap, 2) for gap in gaps]
