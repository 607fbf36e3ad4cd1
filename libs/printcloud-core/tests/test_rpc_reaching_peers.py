"""A channel finds its way back to a service: soon after the service returns from an outage, soon
after every one of its addresses changed, and away from a replica that went silent. Real gRPC
servers, sockets and a DNS server on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import grpc

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.dns_stub import dns_stub


class NamedJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self, name: str) -> None:
        self.name = name

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        return jobs_pb2.PrintJob(title=self.name)


async def _serve_named(name: str, address: str) -> tuple[grpc.aio.Server, int]:
    server = rpc.create_server()
    jobs_pb2_grpc.add_JobsServicer_to_server(NamedJobs(name), server)
    return server, await rpc.start_server(server, address)


async def _name_answering(stub: jobs_pb2_grpc.JobsStub, wanted: str, within_seconds: float) -> list[str]:
    """Calls until `wanted` answers 10 times in a row or `within_seconds` pass; what each call got
    (a name, or the code of its refusal)."""
    got: list[str] = []
    started = time.monotonic()
    while got[-10:] != [wanted] * 10 and time.monotonic() - started < within_seconds:
        try:
            got.append((await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(), timeout=1.0)).title)
        except ApiError as refused:
            got.append(refused.code)
            # A refused call comes back at once while a channel waits to reconnect: pace them.
            await asyncio.sleep(0.1)
    return got


async def _until_each_answered(stub: jobs_pb2_grpc.JobsStub, names: set[str]) -> list[str]:
    """Calls until every one of `names` answered, within a bound no working balancer needs (a
    second connection may come up a moment after the first); who answered each call."""
    answered: list[str] = []
    while len(answered) < 50 and names - set(answered):
        answered.append((await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest())).title)
    return answered


async def test_a_dns_target_spreads_calls_over_every_address_of_its_name() -> None:
    """Two replicas behind one name (a headless Service): round robin reaches both, where gRPC's
    default policy would send every call to the first it connected to."""
    first, port = await _serve_named("first", "127.0.0.1:0")
    second, _ = await _serve_named("second", f"127.0.0.2:{port}")
    try:
        with dns_stub({"jobs.printcloud.test": ["127.0.0.1", "127.0.0.2"]}) as dns_port:
            channel = rpc.channel(f"dns://127.0.0.1:{dns_port}/jobs.printcloud.test:{port}")
            try:
                stub = jobs_pb2_grpc.JobsStub(channel)
                answered = await _until_each_answered(stub, {"first", "second"})
                answered += [(await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest())).title for _ in range(10)]
            finally:
                await channel.close()
    finally:
        await first.stop(None)
        await second.stop(None)
    assert {"first", "second"} <= set(answered)
    # Once both are connected, calls alternate.
    assert sorted(answered[-10:]) == ["first"] * 5 + ["second"] * 5


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
            with contextlib.suppress(ApiError):
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
                    got = await _name_answering(stub, "new", within_seconds=10)
                finally:
                    await new.stop(None)
            finally:
                await channel.close()
    finally:
        await old.stop(None)
    assert got[-10:] == ["new"] * 10, got


class SilencingProxy:
    """Carries TCP connections from a loopback address to a target until silenced; then the
    connections it holds carry nothing either way, with no reset, as when a replica's machine
    vanishes from the network, and new ones are refused (to a vanished machine they would time
    out instead)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.silent = asyncio.Event()
        self.server: asyncio.Server | None = None
        self.pipes: set[asyncio.Task[None]] = set()

    async def start(self, host: str) -> int:
        self.server = await asyncio.start_server(self._carry, host, 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            if self.silent.is_set():
                break
            writer.write(data)
            await writer.drain()
        # Silenced: hold the connection open without carrying or closing it.
        await asyncio.Event().wait()

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.3", self.target_port)
        for pipe in (self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer)):
            task = asyncio.create_task(pipe)
            self.pipes.add(task)

    def silence(self) -> None:
        self.silent.set()
        assert self.server is not None
        self.server.close()

    async def stop(self) -> None:
        for task in self.pipes:
            task.cancel()
        await asyncio.gather(*self.pipes, return_exceptions=True)
        if self.server is not None:
            self.server.close()


@contextlib.asynccontextmanager
async def silenceable_replica(host: str) -> AsyncIterator[tuple[SilencingProxy, int]]:
    """A replica named "silenced" reached through a `SilencingProxy` on `host`; yields the proxy
    and its port."""
    server, target_port = await _serve_named("silenced", "127.0.0.3:0")
    proxy = SilencingProxy(target_port)
    try:
        yield proxy, await proxy.start(host)
    finally:
        await proxy.stop()
        await server.stop(None)


async def test_calls_leave_a_replica_that_went_silent() -> None:
    """Two replicas behind one name; one goes silent (its connection stays open and answers
    nothing). Without a liveness check, every other call would wait out its deadline on that
    connection for as long as the kernel keeps it (many minutes); the channel's pings find it dead
    within seconds, and the calls go to the replica that answers."""
    async with silenceable_replica("127.0.0.1") as (proxy, port):
        healthy, _ = await _serve_named("healthy", f"127.0.0.2:{port}")
        try:
            with dns_stub({"jobs.printcloud.invalid": ["127.0.0.1", "127.0.0.2"]}) as dns_port:
                channel = rpc.channel(f"dns://127.0.0.1:{dns_port}/jobs.printcloud.invalid:{port}")
                try:
                    stub = jobs_pb2_grpc.JobsStub(channel)
                    answered = await _until_each_answered(stub, {"silenced", "healthy"})
                    assert {"silenced", "healthy"} <= set(answered)
                    proxy.silence()
                    got = await _name_answering(stub, "healthy", within_seconds=30)
                finally:
                    await channel.close()
        finally:
            await healthy.stop(None)
    assert got[-10:] == ["healthy"] * 10, got
