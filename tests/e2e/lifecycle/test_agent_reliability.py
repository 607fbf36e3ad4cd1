"""The reference agent's side of reliability (agent/PROTOCOL.md, section 5), against a scripted
gateway: it acknowledges every job, never prints one job twice however often it arrives, and
reports the states of its jobs again after reconnecting."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import AsyncIterator
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from printcloud.agent.backoff import Backoff
from printcloud.agent.client import AgentClient
from printcloud.protocol.messages import Job, PrinterReport
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER

DOCUMENT = "%PDF-1.4 reliability\n"
PRINTER = PrinterReport(name="lab", os_name="Lab", description="test", capabilities={})


class CountingBackend:
    """Prints instantly, or holds each job in `printing` until `release` is set."""

    def __init__(self, *, hold: bool = False) -> None:
        self.printed: list[str] = []
        self.release = asyncio.Event()
        self.finished = asyncio.Event()
        if not hold:
            self.release.set()

    async def discover(self) -> list[PrinterReport]:
        return [PRINTER]

    async def submit(self, job: Job, data: bytes, report: Any) -> None:
        self.printed.append(job.job_id)
        await report("printing", None)
        await self.release.wait()
        await report("done", None)
        self.finished.set()


class ScriptedGateway:
    """Accepts agents, lets the test push messages and drop connections, and records reports."""

    def __init__(self) -> None:
        self.connections: asyncio.Queue[ServerConnection] = asyncio.Queue()
        self.reports: list[tuple[int, str, str]] = []  # (connection number, job id, state)
        self.refusing = False
        self._count = 0
        self._changed = asyncio.Event()

    def job(self, job_id: str) -> str:
        data = DOCUMENT.encode()
        return json.dumps({
            "type": "job", "jobId": job_id, "printerId": "p", "printerName": "lab", "title": "t",
            "contentType": "pdf_base64", "qty": 1, "options": {}, "fileSha256": hashlib.sha256(data).hexdigest(),
            "fileSize": len(data), "downloadPath": f"/agent/v1/jobs/{job_id}/file?token=t",
        })  # fmt: skip

    def process_request(self, connection: ServerConnection, request: Any) -> Any:
        if request.path.startswith("/agent/v1/jobs/"):
            return connection.respond(HTTPStatus.OK, DOCUMENT)
        return None

    async def handler(self, ws: ServerConnection) -> None:
        await ws.recv()  # hello
        if self.refusing:
            await ws.close(1013, "try again later")
            return
        self._count += 1
        number = self._count
        await ws.send(json.dumps({"type": "welcome", "computerId": "c", "heartbeatSeconds": 30}))
        await self.connections.put(ws)
        with contextlib.suppress(ConnectionClosed):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "job.state":
                    self.reports.append((number, message["jobId"], message["state"]))
                    self._changed.set()

    async def wait_for(self, check: Any, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                self._changed.clear()
                await self._changed.wait()

    def states(self, job_id: str, connection: int | None = None) -> list[str]:
        return [s for n, j, s in self.reports if j == job_id and connection in (None, n)]


@contextlib.asynccontextmanager
async def running_agent(backend: CountingBackend) -> AsyncIterator[tuple[ScriptedGateway, AgentClient]]:
    gateway = ScriptedGateway()
    async with serve(gateway.handler, "127.0.0.1", 0, process_request=gateway.process_request) as server:
        port = server.sockets[0].getsockname()[1]
        agent = AgentClient(
            f"http://127.0.0.1:{port}", "pca_test", backend, VIRTUAL_COMPUTER, backoff=Backoff(base=0.05, cap=0.1)
        )
        task = asyncio.create_task(agent.run())
        try:
            yield gateway, agent
        finally:
            await agent.stop()
            await asyncio.wait_for(task, 5)


async def test_a_job_arriving_again_is_answered_with_its_state_and_never_printed_twice() -> None:
    backend = CountingBackend()
    async with running_agent(backend) as (gateway, _agent):
        first = await asyncio.wait_for(gateway.connections.get(), 5)
        await first.send(gateway.job("j1"))
        await gateway.wait_for(lambda: gateway.states("j1") == ["received", "printing", "done"])
        # A resend on the same connection...
        await first.send(gateway.job("j1"))
        await gateway.wait_for(lambda: gateway.states("j1", 1) == ["received", "printing", "done", "done"])
        # ...and a delivery after a reconnect: answered, not printed.
        await first.close(1012, "restart")
        second = await asyncio.wait_for(gateway.connections.get(), 5)
        await second.send(gateway.job("j1"))
        await gateway.wait_for(lambda: "done" in gateway.states("j1", 2))
    assert backend.printed == ["j1"]


async def test_states_of_jobs_in_flight_are_reported_again_after_a_reconnect() -> None:
    backend = CountingBackend(hold=True)
    async with running_agent(backend) as (gateway, agent):
        first = await asyncio.wait_for(gateway.connections.get(), 5)
        await first.send(gateway.job("j2"))
        await gateway.wait_for(lambda: gateway.states("j2") == ["received", "printing"])
        # The connection drops and the gateway refuses the agent for a while: the job finishes
        # meanwhile, and its `done` cannot be sent.
        gateway.refusing = True
        await first.close(1011, "gateway error")
        await asyncio.wait_for(_until(lambda: not agent.connected.is_set()), 5)
        backend.release.set()
        await asyncio.wait_for(backend.finished.wait(), 5)
        gateway.refusing = False
        await asyncio.wait_for(gateway.connections.get(), 5)
        # The whole way to `done`, so a service that missed `received` or `printing` can follow.
        await gateway.wait_for(lambda: gateway.states("j2", 2) == ["received", "printing", "done"])
    assert backend.printed == ["j2"]


async def _until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0.01)
