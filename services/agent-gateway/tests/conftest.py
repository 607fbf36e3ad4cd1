"""A real agent-gateway (uvicorn on a free loopback port) in front of fake Devices and Jobs gRPC
services, so tests can see exactly what the gateway calls."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest

from printcloud.agent_gateway.app import create_app, start_http
from printcloud.agent_gateway.service import AgentGatewayService
from printcloud.agent_gateway.transport.commands import AgentCommands
from printcloud.agent_gateway.transport.devices_client import DevicesClient
from printcloud.agent_gateway.transport.jobs_client import JobsClient
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.core.ops import bound_port, stop_app
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc, jobs_pb2, jobs_pb2_grpc

COMPUTER_ID = "0190a000-0000-7000-8000-000000000001"
CREDENTIAL = "agent-credential-1"
DISABLED_CREDENTIAL = "agent-credential-disabled"
SECRET = "test-secret-of-32-characters-at-least"
INSTANCE = "gw-test"


class Recorder:
    """Calls seen by the fakes, in order, with a way to wait for one."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self._changed = asyncio.Event()

    def add(self, name: str, request: Any) -> None:
        self.calls.append((name, request))
        self._changed.set()

    def named(self, name: str) -> list[Any]:
        return [request for called, request in self.calls if called == name]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()


class FakeDevices(devices_pb2_grpc.DevicesServicer):
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        # The computer's state as GetComputer tells it; None: deleted.
        self.computer_state: str | None = "online"
        # An error code ReportPrinters answers with, instead of taking the report.
        self.printers_refused_with: str | None = None

    async def GetComputer(self, request: devices_pb2.GetComputerRequest, context: Any) -> Any:
        self.recorder.add("GetComputer", request)
        scope = (request.scope.organization_id, request.scope.mode)
        if request.id != COMPUTER_ID or scope != ("o", "test") or self.computer_state is None:
            raise ApiError("not_found", "No such computer.")
        return devices_pb2.Computer(id=COMPUTER_ID, organization_id="o", mode="test", state=self.computer_state)

    async def AuthenticateAgent(self, request: devices_pb2.AuthenticateAgentRequest, context: Any) -> Any:
        if request.agent_credential not in (CREDENTIAL, DISABLED_CREDENTIAL):
            raise ApiError("unauthorized", "unknown credential")
        disabled = request.agent_credential == DISABLED_CREDENTIAL
        return devices_pb2.AgentIdentity(computer_id=COMPUTER_ID, organization_id="o", mode="test", disabled=disabled)

    async def AgentConnected(self, request: devices_pb2.AgentConnectedRequest, context: Any) -> Any:
        self.recorder.add("AgentConnected", request)
        return devices_pb2.Computer(id=request.computer_id, state="online")

    async def AgentSeen(self, request: devices_pb2.AgentSeenRequest, context: Any) -> Any:
        self.recorder.add("AgentSeen", request)
        return common_pb2.Empty()

    async def AgentDisconnected(self, request: devices_pb2.AgentDisconnectedRequest, context: Any) -> Any:
        self.recorder.add("AgentDisconnected", request)
        return common_pb2.Empty()

    async def ReportPrinters(self, request: devices_pb2.ReportPrintersRequest, context: Any) -> Any:
        self.recorder.add("ReportPrinters", request)
        if self.printers_refused_with is not None:
            raise ApiError(self.printers_refused_with, "printer report refused")
        return devices_pb2.PrinterList()

    async def GatewayHeartbeat(self, request: devices_pb2.GatewayHeartbeatRequest, context: Any) -> Any:
        self.recorder.add("GatewayHeartbeat", request)
        # Devices "forgets" a replica between the first heartbeat and the next, as after a sweep.
        return devices_pb2.GatewayHeartbeatResponse(known=len(self.recorder.named("GatewayHeartbeat")) > 2)


@dataclass
class StoredJob:
    delivery: jobs_pb2.JobDelivery
    data: bytes
    send_count: int = 0


class FakeJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.jobs: dict[str, StoredJob] = {}

    def add(
        self,
        job_id: str,
        data: bytes,
        *,
        printer_name: str = "virtual-office",
        title: str = "Test",
        options: str = "{}",
    ) -> None:
        delivery = jobs_pb2.JobDelivery(
            job_id=job_id,
            computer_id=COMPUTER_ID,
            printer_id="0190a000-0000-7000-8000-0000000000ff",
            title=title,
            content_type="pdf_base64",
            qty=1,
            options_json=options,
            file_sha256=hashlib.sha256(data).hexdigest(),
            file_size=len(data),
            state="queued",
            printer_name=printer_name,
        )
        self.jobs[job_id] = StoredJob(delivery, data)

    def _job(self, request: jobs_pb2.AgentJobRequest) -> StoredJob:
        job = self.jobs.get(request.job_id)
        if job is None or job.delivery.computer_id != request.computer_id:
            raise ApiError("not_found", "No such job.")
        return job

    def states(self, job_id: str) -> list[str]:
        return [r.state for r in self.recorder.named("ReportJobState") if r.job_id == job_id]

    async def ClaimDelivery(self, request: jobs_pb2.ClaimDeliveryRequest, context: Any) -> Any:
        """Jobs' claim rule, recording the claims that let a push through as `Claimed`."""
        job = self._job(jobs_pb2.AgentJobRequest(computer_id=request.computer_id, job_id=request.job_id))
        first = not request.HasField("resend_of") and job.delivery.state == "queued"
        resend = request.HasField("resend_of") and job.delivery.state == "sent" and job.send_count == request.resend_of
        if first or resend:
            self.recorder.add("Claimed", request)
            job.send_count += 1
            job.delivery.state = "sent"
        return jobs_pb2.ClaimDeliveryResponse(claimed=first or resend, delivery=job.delivery)

    async def ReportJobState(self, request: jobs_pb2.ReportJobStateRequest, context: Any) -> Any:
        job = self._job(jobs_pb2.AgentJobRequest(computer_id=request.computer_id, job_id=request.job_id))
        self.recorder.add("ReportJobState", request)
        job.delivery.state = request.state
        return jobs_pb2.PrintJob(id=request.job_id, state=request.state)

    async def ListPendingJobs(self, request: jobs_pb2.ListPendingJobsRequest, context: Any) -> Any:
        self.recorder.add("ListPendingJobs", request)
        queued = [
            job.delivery
            for job in self.jobs.values()
            if job.delivery.computer_id == request.computer_id and job.delivery.state == "queued"
        ]
        return jobs_pb2.JobDeliveryList(items=queued)

    async def ReadJobFile(self, request: jobs_pb2.AgentJobRequest, context: Any) -> AsyncIterator[Any]:
        data = self._job(request).data
        yield jobs_pb2.FileChunk(data=data[:4], file_size=len(data))
        for start in range(4, len(data), 4):  # several chunks, as large files arrive
            yield jobs_pb2.FileChunk(data=data[start : start + 4])


@dataclass
class Stack:
    url: str
    recorder: Recorder
    jobs: FakeJobs
    devices: FakeDevices
    service: AgentGatewayService
    commands: AgentCommands

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/agent/v1/ws"


@pytest.fixture
async def stack() -> AsyncIterator[Stack]:
    recorder = Recorder()
    jobs = FakeJobs(recorder)
    devices = FakeDevices(recorder)
    server = rpc.create_server()
    devices_pb2_grpc.add_DevicesServicer_to_server(devices, server)
    jobs_pb2_grpc.add_JobsServicer_to_server(jobs, server)
    grpc_port = await rpc.start_server(server, "127.0.0.1:0")
    channel = rpc.channel(f"127.0.0.1:{grpc_port}")
    service = AgentGatewayService(
        devices=DevicesClient(devices_pb2_grpc.DevicesStub(channel)),
        jobs=JobsClient(jobs_pb2_grpc.JobsStub(channel)),
        instance_id=INSTANCE,
        file_token_secret=SECRET,
        file_token_ttl_seconds=600,
        heartbeat_seconds=30.0,
    )
    http, http_task = await start_http(create_app(service, "agent-gateway"), "127.0.0.1", 0, 30.0)
    try:
        yield Stack(f"http://127.0.0.1:{bound_port(http)}", recorder, jobs, devices, service, AgentCommands(service))
    finally:
        await stop_app(http, http_task)
        await channel.close()
        await server.stop(None)
