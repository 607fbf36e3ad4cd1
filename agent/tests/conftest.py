"""A fake agent-gateway speaking protocol v1 over a real socket: WebSocket plus the file route."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Callable
from http import HTTPStatus
from typing import Any

import pytest
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from printcloud.protocol.constants import SUBPROTOCOL

GOOD_CREDENTIAL = "good-credential"


class FakeGateway:
    def __init__(self) -> None:
        self.credential = GOOD_CREDENTIAL
        self.files: dict[str, bytes] = {}
        self.downloads: list[str] = []
        self.received: list[dict[str, Any]] = []
        self.hellos = 0
        # Whether each `job.state` is acknowledged, as the real gateway does once the service took it.
        self.acknowledge = True
        self.connection: ServerConnection | None = None
        # Upgrade requests still to refuse with 503 and this `Retry-After` (a proxy in maintenance).
        self.busy_refusals = 0
        self.retry_after = "0"
        # Fields the welcome carries beside its required ones (a gateway's release).
        self.welcome_extra: dict[str, Any] = {}
        # Set: the welcome waits until it is (a gateway slow to answer a hello).
        self.welcome_held: asyncio.Event | None = None
        self._changed = asyncio.Event()
        self.server: Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        port = next(iter(self.server.sockets)).getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def job(self, job_id: str, data: bytes, **fields: Any) -> dict[str, Any]:
        self.files[job_id] = data
        return {
            "type": "job",
            "jobId": job_id,
            "printerId": "p-1",
            "printerName": "virtual-office",
            "title": "Test",
            "contentType": "pdf_base64",
            "qty": 1,
            "options": {},
            "fileSha256": hashlib.sha256(data).hexdigest(),
            "fileSize": len(data),
            "downloadPath": f"/agent/v1/jobs/{job_id}/file?token=t",
            **fields,
        }

    def states(self, job_id: str) -> list[str]:
        return [m["state"] for m in self.received if m.get("type") == "job.state" and m["jobId"] == job_id]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.connection is not None
        await self.connection.send(json.dumps(message))

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        if not request.path.startswith("/agent/v1/jobs/"):
            if self.busy_refusals == 0:
                return None  # a WebSocket handshake
            self.busy_refusals -= 1
            headers = Headers([("Retry-After", self.retry_after), ("Content-Length", "0")])
            return Response(HTTPStatus.SERVICE_UNAVAILABLE, "Service Unavailable", headers, b"")
        job_id = request.path.split("/")[4]
        self.downloads.append(job_id)
        body = self.files[job_id]
        headers = Headers([("Content-Length", str(len(body))), ("Content-Type", "application/octet-stream")])
        return Response(HTTPStatus.OK, "OK", headers, body)

    async def _handler(self, connection: ServerConnection) -> None:
        assert connection.request is not None  # the handshake is done before the handler runs
        if connection.request.headers.get("Authorization") != f"Bearer {GOOD_CREDENTIAL}":
            await connection.close(4401, "invalid credential")
            return
        hello = json.loads(await connection.recv())
        assert hello["type"] == "hello"
        self.hellos += 1
        self.received.append(hello)
        self.connection = connection
        self._changed.set()
        if self.welcome_held is not None:
            await self.welcome_held.wait()
        welcome = {"type": "welcome", "computerId": "c-1", "heartbeatSeconds": 30, **self.welcome_extra}
        await connection.send(json.dumps(welcome))
        self._changed.set()
        async for raw in connection:
            message = json.loads(raw)
            self.received.append(message)
            if message.get("type") == "job.state" and self.acknowledge:
                ack = {"type": "job.state.recorded", "jobId": message["jobId"], "state": message["state"]}
                await connection.send(json.dumps(ack))
            self._changed.set()
        self._changed.set()


@pytest.fixture
async def gateway() -> AsyncIterator[FakeGateway]:
    fake = FakeGateway()
    async with serve(
        fake._handler, "127.0.0.1", 0, subprotocols=[Subprotocol(SUBPROTOCOL)], process_request=fake._process_request
    ) as server:
        fake.server = server
        yield fake
