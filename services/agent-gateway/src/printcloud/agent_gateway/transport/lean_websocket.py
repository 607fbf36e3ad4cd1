"""uvicorn's sans-I/O WebSocket protocol, holding less for an idle connection's life.

An agent stays connected for hours doing nothing, and 10,000 of them share one replica, so what a
connection holds is the replica's size (docs/performance.md). uvicorn keeps three things it no
longer needs once the connection is accepted, and gives each connection four empty deques:

- the handshake's request and response with their headers, and the ASGI scope's copy of the
  request's; the agent's credential is among them, which is also no reason to keep it for hours.
  Nothing reads them after the accept (the gateway reads the credential before accepting);
- an `asyncio.Queue` (three deques and an `Event` with a fourth) for messages that one task reads,
  and an `Event` for write back-pressure: a deque preallocates 64 slots (760 bytes) even empty.

Only uvicorn's pinned version is tested (requirements.txt): a newer one must pass the
agent-gateway's tests again before it is taken.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol


class LeanWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Gate()  # type: ignore[assignment]

    async def send(self, message: Any) -> None:
        accepting = not self.handshake_complete
        await super().send(message)
        if accepting and self.handshake_complete:
            self.forget_handshake()

    def forget_handshake(self) -> None:
        self.request = None
        self.response = None
        # In place: the application's view of the scope shares this list.
        self.scope["headers"].clear()


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
            getter = asyncio.get_running_loop().create_future()
            self._getters.append(getter)
            try:
                await getter
            finally:
                self._getters.remove(getter)
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
        if self._open:
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._waiters.remove(waiter)
