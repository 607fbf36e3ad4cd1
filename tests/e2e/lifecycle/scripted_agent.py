"""A test agent that speaks agent protocol v1 by hand (agent/PROTOCOL.md), so that a test decides
what happens to each `job` message it receives: ignore it, acknowledge it, stall in `printing`,
or print it. It never reconnects by itself: the test says when and to which replica.

It runs its own event loop in a thread, so the synchronous tests can drive it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import Counter
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

PRINTER_NAME = "lab"
CAPABILITIES = {
    "papers": {"A4": [2100, 2970]}, "bins": [], "dpis": ["600x600"], "medias": [], "duplex": True,
    "color": False, "collate": True, "copies": 99, "nup": [1], "extent": None, "printrate": None,
    "supports_custom_paper_size": False,
}  # fmt: skip


class Reply(StrEnum):
    IGNORE = "ignore"  # as if the message were lost
    RECEIVE = "receive"  # download, then `received`
    STALL = "stall"  # `received`, `printing`, and nothing more
    PRINT = "print"  # `received`, `printing`, `done`


# (job id, how many times this job has arrived, counting this one) -> what to do with it.
Script = Callable[[str, int], Reply]


def always(reply: Reply) -> Script:
    return lambda _job_id, _nth: reply


class Refused(Exception):
    def __init__(self, code: int | None) -> None:
        super().__init__(f"the gateway closed the connection with {code} before welcome")
        self.code = code


class ScriptedAgent:
    def __init__(self, credential: str, script: Script) -> None:
        self.credential = credential
        self.script = script
        self.sends: Counter[str] = Counter()
        # The last `job` message of each job, as it arrived.
        self.jobs: dict[str, dict[str, Any]] = {}
        self.close_code: int | None = None
        self._ws: ClientConnection | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def _run(self, coroutine: Any, timeout: float = 20.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    @property
    def connected(self) -> bool:
        return self._ws is not None

    def connect(self, gateway_url: str) -> str:
        """Connects and says hello; returns the computer id of `welcome`, or raises `Refused`."""
        return self._run(self._connect(gateway_url))

    def disconnect(self) -> None:
        self._run(self._disconnect())

    def report(self, job_id: str, state: str) -> None:
        """Sends a `job.state` now, whatever the script said: the test moves the job itself."""
        self._run(self._report(job_id, state))

    async def _report(self, job_id: str, state: str) -> None:
        assert self._ws is not None, "not connected"
        await self._ws.send(json.dumps({"type": "job.state", "jobId": job_id, "state": state}))

    def shutdown(self) -> None:
        if self._ws is not None:
            self.disconnect()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    async def _connect(self, gateway_url: str) -> str:
        ws_url = gateway_url.replace("http://", "ws://") + "/agent/v1/ws"
        headers = {"Authorization": f"Bearer {self.credential}"}
        try:
            ws = await connect(ws_url, additional_headers=headers, subprotocols=["printcloud.agent.v1"])
        except InvalidStatus as refused:
            raise Refused(refused.response.status_code) from None
        try:
            # The gateway may refuse the credential before the hello is out: a refusal either way.
            await ws.send(json.dumps(self._hello()))
            welcome = json.loads(await ws.recv())
        except ConnectionClosed:
            self.close_code = ws.close_code
            raise Refused(ws.close_code) from None
        assert welcome["type"] == "welcome", welcome
        self._ws = ws
        self.close_code = None
        asyncio.get_running_loop().create_task(self._receive(ws, gateway_url))
        return str(welcome["computerId"])

    async def _disconnect(self) -> None:
        if self._ws is not None:
            await self._ws.close()

    def _hello(self) -> dict[str, Any]:
        printer = {
            "name": PRINTER_NAME, "osName": "Lab printer", "description": "test driver", "isDefault": True,
            "state": "online", "stateDetail": "", "capabilities": CAPABILITIES, "defaultOptions": {},
        }  # fmt: skip
        computer = {"hostname": "lab-pc", "os": "linux", "osVersion": "6", "arch": "x86_64", "agentVersion": "test"}
        return {"type": "hello", "protocolVersion": 1, "computer": computer, "printers": [printer]}

    async def _receive(self, ws: ClientConnection, gateway_url: str) -> None:
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "job":
                    self.sends[message["jobId"]] += 1
                    self.jobs[message["jobId"]] = message
                    reply = self.script(message["jobId"], self.sends[message["jobId"]])
                    asyncio.get_running_loop().create_task(self._answer(ws, gateway_url, message, reply))
        except ConnectionClosed:
            pass
        finally:
            self.close_code = ws.close_code
            if self._ws is ws:
                self._ws = None

    async def _answer(self, ws: ClientConnection, gateway_url: str, job: dict[str, Any], reply: Reply) -> None:
        if reply is Reply.IGNORE:
            return
        async with httpx.AsyncClient() as http:
            download = await http.get(gateway_url + job["downloadPath"])
        assert download.status_code == 200 and len(download.content) == job["fileSize"]
        states = {Reply.RECEIVE: ["received"], Reply.STALL: ["received", "printing"]}.get(
            reply, ["received", "printing", "done"]
        )
        for state in states:
            try:
                await ws.send(json.dumps({"type": "job.state", "jobId": job["jobId"], "state": state}))
            except ConnectionClosed:
                return  # lost with the connection, as a real agent's report can be
