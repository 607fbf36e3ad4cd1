"""Speed machinery: a WebSocket protocol holding less for idle agents (docs/performance.md, "Speed machinery").

An agent stays connected for hours doing nothing, and thousands share one replica, so what a
connection holds is the replica's size. uvicorn keeps what it no longer needs once the connection is
accepted: the handshake's request and response with their headers, and the ASGI scope's copy of
the request's (the agent's credential among them, which is also no reason to keep it for hours;
the gateway reads it before accepting). It also gives each connection an `asyncio.Queue` and an
`Event`, whose deques preallocate their slots even empty: `Inbox` and `Gate` do their part in lists.

It logs less too: uvicorn and websockets each log every connection accepted or refused at INFO,
two lines an attempt, a storm's worth of them. The gateway logs the agents it serves itself and
counts its refusals (`printcloud_agent_busy_refusals_total`); their warnings and errors still pass.

What it changes on uvicorn's protocol goes through `printcloud.core.http.uvicorn_websocket`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from printcloud.core.http import uvicorn_websocket
from printcloud.core.http.edge_websocket import EdgeWebSocketProtocol

SERVER_LOG = logging.getLogger("printcloud.agent_gateway.websocket_server")
SERVER_LOG.setLevel(logging.WARNING)


class LeanWebSocketProtocol(EdgeWebSocketProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        uvicorn_websocket.log_to(self, SERVER_LOG)
        uvicorn_websocket.replace_receive_queue(self, Inbox())
        uvicorn_websocket.replace_write_gate(self, Gate())

    async def send(self, message: Any) -> None:
        accepting = not uvicorn_websocket.handshake_complete(self)
        await super().send(message)
        if accepting and uvicorn_websocket.handshake_complete(self):
            uvicorn_websocket.forget_handshake(self)


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
