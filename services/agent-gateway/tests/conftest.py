"""A real agent-gateway (uvicorn on a free loopback port) in front of the shared fake Devices and
Jobs gRPC services, so tests can see exactly what the gateway calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from printcloud.agent_gateway.app import create_app, start_http
from printcloud.agent_gateway.transport.agent_command_events import AgentCommandEventsHandler
from printcloud.agent_gateway.transport.agent_socket import busy_upgrade_refusal
from printcloud.agent_gateway.transport.devices_client import DevicesClient
from printcloud.agent_gateway.transport.jobs_client import JobsClient
from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.core import rpc
from printcloud.core.telemetry.ops import bound_port, stop_app
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc
from tests.support.fakes.devices import FakeDevices
from tests.support.fakes.jobs import FakeJobs
from tests.support.fakes.recorder import Recorder

COMPUTER_ID = "0190a000-0000-7000-8000-000000000001"
CREDENTIAL = "agent-credential-1"
PRINTER_ID = "0190a000-0000-7000-8000-0000000000ff"
SECRET = "test-secret-of-32-characters-at-least"
INSTANCE = "gw-test"


@dataclass
class Stack:
    url: str
    recorder: Recorder
    jobs: FakeJobs
    devices: FakeDevices
    agents: Agents
    commands: AgentCommandEventsHandler

    def add_job(
        self,
        job_id: str,
        data: bytes,
        *,
        printer_name: str = "virtual-office",
        title: str = "Test",
        options: str = "{}",
    ) -> None:
        """A queued job for the test computer."""
        self.jobs.add_job(
            "o", "test", PRINTER_ID, id=job_id, computer_id=COMPUTER_ID, data=data, printer_name=printer_name,
            title=title, options_json=options or "{}",
        )  # fmt: skip

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/agent/v1/ws"


@pytest.fixture
async def stack() -> AsyncIterator[Stack]:
    recorder = Recorder()
    jobs = FakeJobs(recorder)
    devices = FakeDevices(recorder)
    devices.add_agent(CREDENTIAL, devices.add_computer("o", "test", id=COMPUTER_ID))
    server = rpc.create_server()
    devices_pb2_grpc.add_DevicesServicer_to_server(devices, server)
    jobs_pb2_grpc.add_JobsServicer_to_server(jobs, server)
    grpc_port = await rpc.start_server(server, "127.0.0.1:0")
    channel = rpc.channel(f"127.0.0.1:{grpc_port}")
    devices_client = DevicesClient(devices_pb2_grpc.DevicesStub(channel))
    agents = Agents(devices_client, INSTANCE, heartbeat_seconds=30.0)
    agent_jobs = AgentJobs(
        JobsClient(jobs_pb2_grpc.JobsStub(channel)),
        devices_client,
        file_token_secret=SECRET,
        file_token_ttl_seconds=600,
    )
    app = create_app(agents, agent_jobs, "agent-gateway")
    http, http_task = await start_http(app, "127.0.0.1", 0, 30.0, upgrade_refusal=busy_upgrade_refusal(agents))
    try:
        commands = AgentCommandEventsHandler(agents, agent_jobs)
        yield Stack(f"http://127.0.0.1:{bound_port(http)}", recorder, jobs, devices, agents, commands)
    finally:
        await stop_app(http, http_task)
        await channel.close()
        await server.stop(None)
