"""uvicorn's sans-I/O WebSocket protocol, reached past its options in this one place.

The public ports serve WebSockets with subclasses of `WebSocketsSansIOProtocol` (`edge_websocket`,
and the agent-gateway's lean protocol). uvicorn documents none of what they read or change on it:
the object that answers the handshake, whether the handshake began or ended, the receive queue,
the write gate, the handshake's request and response, the loggers. Each is a function here, and
`libs/printcloud-core/tests/test_uvicorn_websocket.py` fails as soon as a uvicorn release changes
one of them. Only uvicorn's pinned version (requirements.txt) is known to pass.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.server import ServerProtocol


class ReceiveQueue(Protocol):
    """What uvicorn asks of the queue of events received for the application."""

    def put_nowait(self, item: Any) -> None: ...

    def empty(self) -> bool: ...

    async def get(self) -> Any: ...


class WriteGate(Protocol):
    """What uvicorn asks of its write back-pressure event: open until cleared."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...

    def clear(self) -> None: ...

    async def wait(self) -> Any: ...


def answer_handshakes_with(protocol: WebSocketsSansIOProtocol, server_class: type[ServerProtocol]) -> None:
    """uvicorn builds websockets' `ServerProtocol` itself, with no way to name another class. A
    subclass that only overrides methods can take the place of the one built, without a second
    object per connection (10,000 agents connect at once after an outage)."""
    protocol.conn.__class__ = server_class


def handshake_initiated(protocol: WebSocketsSansIOProtocol) -> bool:
    """Whether the protocol made a request of the head it was handed."""
    return protocol.handshake_initiated


def handshake_complete(protocol: WebSocketsSansIOProtocol) -> bool:
    return protocol.handshake_complete


def mark_handshake_complete(protocol: WebSocketsSansIOProtocol) -> None:
    protocol.handshake_complete = True


def replace_receive_queue(protocol: WebSocketsSansIOProtocol, queue: ReceiveQueue) -> None:
    protocol.queue = queue  # type: ignore[assignment]  # uvicorn types it as the asyncio.Queue it makes


def replace_write_gate(protocol: WebSocketsSansIOProtocol, gate: WriteGate) -> None:
    protocol.writable = gate  # type: ignore[assignment]  # uvicorn types it as the asyncio.Event it makes


def forget_handshake(protocol: WebSocketsSansIOProtocol) -> None:
    """Drops the handshake's request and response and empties the scope's header list, which
    uvicorn keeps for the connection's life and reads no more once the handshake is complete."""
    protocol.request = None  # type: ignore[assignment]  # typed as always set once the handshake began
    protocol.response = None  # type: ignore[assignment]
    # In place: the application's view of the scope shares this list (uvicorn builds a list).
    cast(list[tuple[bytes, bytes]], protocol.scope["headers"]).clear()


def log_to(protocol: WebSocketsSansIOProtocol, logger: logging.Logger) -> None:
    """The logger of the protocol and of websockets' connection under it."""
    protocol.logger = logger
    protocol.conn.logger = logger
