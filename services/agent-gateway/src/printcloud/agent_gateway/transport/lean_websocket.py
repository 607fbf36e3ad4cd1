"""The public ports' WebSocket protocol (`printcloud.core.http.edge_websocket`), holding less for an idle
connection's life.

An agent stays connected for hours doing nothing, and 10,000 of them share one replica, so what a
connection holds is the replica's size (docs/performance.md). uvicorn keeps three things it no
longer needs once the connection is accepted, and gives each connection four empty deques:

- the handshake's request and response with their headers, and the ASGI scope's copy of the
  request's; the agent's credential is among them, which is also no reason to keep it for hours.
  Nothing reads them after the accept (the gateway reads the credential before accepting);
- an `asyncio.Queue` (three deques and an `Event` with a fourth) for messages that one task reads,
  and an `Event` for write back-pressure: a deque preallocates 64 slots (760 bytes) even empty.

It also logs less: uvicorn and websockets each log every connection accepted or refused at INFO,
two lines an attempt, 150,000 in a storm of 10,000 reconnecting agents, where formatting and
writing them took 6 % of the gateway's CPU. The gateway logs the agents it serves itself and
counts its refusals (`printcloud_agent_busy_refusals_total`); their warnings and errors still pass.

Only uvicorn's pinned version is tested (requirements.txt): a newer one must pass the
agent-gateway's tests again before it is taken.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from printcloud.core.http.edge_websocket import EdgeWebSocketProtocol

SERVER_LOG = logging.getLogger("printcloud.agent_gateway.websocket_server")
SERVER_LOG.setLevel(logging.WARNING)


class LeanWebSocketProtocol(EdgeWebSocketProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = SERVER_LOG
        self.conn.logger = SERVER_LOG
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Gate()  # type: ignore[assignment]

    async def send(self, message: Any) -> None:
        accepting = not self.handshake_complete
        await super().send(message)
        if accepting and self.handshake_complete:
            self.forget_handshake()

    def forget_handshake(self) -> None:
        # uvicorn reads neither once the handshake is complete.
        self.request = None  # type: ignore[assignment]
        self.response = None  # type: ignore[assignment]
        # In place: the application's view of the scope shares this list (uvicorn builds a list).
        cast(list[tuple[bytes, bytes]], self.scope["headers"]).clear()


class Inbox:
    """What uvicorn asks of its receive queue (put without waiting, get, empty), in a list."""

    __slots__ = ("_getters", "_items")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._getters: list[asyncio.Future[None]] = []

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        self._wake_one()

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> Any:
        while not self._items:
            try:
                await _woken_in(self._getters)
            finally:
                if self._items:
                    # A getter woken but cancelled must not strand the item for the others.
                    self._wake_one()
        return self._items.pop(0)

    def _wake_one(self) -> None:
        for getter in self._getters:
            if not getter.done():
                getter.set_result(None)
                return


class Gate:
    """What uvicorn asks of its writable event (set, clear, wait), open until cleared."""

    __slots__ = ("_open", "_waiters")

    def __init__(self) -> None:
        self._open = True
        self._waiters: list[asyncio.Future[None]] = []

    def is_set(self) -> bool:
        return self._open

    def set(self) -> None:
        self._open = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._open = False

    async def wait(self) -> None:
        if not self._open:
            await _woken_in(self._waiters)


async def _woken_in(waiters: list[asyncio.Future[None]]) -> None:
    """Waits in `waiters` until whoever holds the list wakes this waiter, then leaves it."""
    waiter = asyncio.get_running_loop().create_future()
    waiters.append(waiter)
    try:
        await waiter
    finally:
        waiters.remove(waiter)
