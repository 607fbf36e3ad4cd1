"""What `printcloud.core.http.uvicorn_websocket` assumes of uvicorn's sans-I/O WebSocket protocol,
held against the installed uvicorn: a release that renames, retypes or starts using more of what the
public ports' protocols change fails here, naming the attribute, before any connection does."""

from __future__ import annotations

import asyncio
import inspect
import logging
import re
from typing import Any

from starlette.types import Receive, Scope, Send
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.server import ServerProtocol

from printcloud.core.http import uvicorn_websocket
from printcloud.core.http.edge_websocket import EnvelopeServerProtocol
from printcloud.core.http.uvicorn_websocket import ReceiveQueue, WriteGate

SOURCE = inspect.getsource(WebSocketsSansIOProtocol)
KEY = "dGhlIHNhbXBsZSBub25jZQ=="
HANDSHAKE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: " + KEY.encode() + b"\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class _Transport(asyncio.Transport):
    """A socket's place: what the protocol writes is kept, nothing is sent."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8081), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    """Never called: the protocols here make no connection."""


def _protocol() -> WebSocketsSansIOProtocol:
    config = Config(app=_app, ws="websockets-sansio", log_config=None)
    config.load()
    return WebSocketsSansIOProtocol(config, ServerState(), {}, _loop=asyncio.get_running_loop())


def _used_on(attribute: str) -> set[str]:
    """The names uvicorn's protocol reads on `self.<attribute>`."""
    return set(re.findall(rf"self\.{attribute}\.(\w+)", SOURCE))


def _offered_by(protocol_class: type[Any]) -> set[str]:
    return {name for name in vars(protocol_class) if not name.startswith("_")}


def test_uvicorn_asks_no_more_of_its_receive_queue_and_write_gate_than_a_replacement_must_offer() -> None:
    assert _used_on("queue") == {"put_nowait", "get", "empty"}, "uvicorn uses its receive queue differently"
    assert _used_on("queue") <= _offered_by(ReceiveQueue)
    assert _used_on("writable") == {"set", "clear", "wait"}, "uvicorn uses its write gate differently"
    assert _used_on("writable") <= _offered_by(WriteGate)


async def test_after_a_real_handshake_uvicorn_holds_it_where_forget_handshake_drops_it() -> None:
    accepted = asyncio.Event()

    async def accept(scope: Scope, receive: Receive, send: Send) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        accepted.set()
        await receive()

    protocol = _protocol()
    protocol.app = accept
    transport = _Transport()
    protocol.connection_made(transport)
    protocol.data_received(HANDSHAKE)
    await asyncio.wait_for(accepted.wait(), 5)

    assert uvicorn_websocket.handshake_initiated(protocol) and uvicorn_websocket.handshake_complete(protocol)
    assert protocol.request.headers["Sec-WebSocket-Key"] == KEY
    assert protocol.response.status_code == 101
    headers = protocol.scope["headers"]
    assert type(headers) is list and (b"sec-websocket-key", KEY.encode()) in [(k.lower(), v) for k, v in headers]
    assert any(b" 101 " in chunk for chunk in transport.written)

    uvicorn_websocket.forget_handshake(protocol)
    kept: tuple[object, object] = (protocol.request, protocol.response)
    assert kept == (None, None)
    assert headers == [] and protocol.scope["headers"] is headers
    protocol.connection_lost(None)


async def test_a_new_protocol_has_what_the_adapter_reads_and_replaces() -> None:
    protocol = _protocol()
    assert isinstance(protocol.queue, asyncio.Queue)
    assert isinstance(protocol.writable, asyncio.Event) and protocol.writable.is_set()
    assert type(protocol.conn) is ServerProtocol
    assert protocol.handshake_initiated is False
    assert protocol.handshake_complete is False
    assert protocol.logger.name == "uvicorn.error"


async def test_the_adapter_changes_a_protocol_as_it_says() -> None:
    protocol = _protocol()
    uvicorn_websocket.answer_handshakes_with(protocol, EnvelopeServerProtocol)
    assert type(protocol.conn) is EnvelopeServerProtocol
    assert not uvicorn_websocket.handshake_initiated(protocol)
    assert not uvicorn_websocket.handshake_complete(protocol)
    uvicorn_websocket.mark_handshake_complete(protocol)
    assert uvicorn_websocket.handshake_complete(protocol)

    queue: asyncio.Queue[Any] = asyncio.Queue()
    gate = asyncio.Event()
    uvicorn_websocket.replace_receive_queue(protocol, queue)
    uvicorn_websocket.replace_write_gate(protocol, gate)
    assert protocol.queue is queue and protocol.writable is gate

    quiet = logging.getLogger("test.uvicorn_websocket")
    uvicorn_websocket.log_to(protocol, quiet)
    assert protocol.logger is quiet and protocol.conn.logger is quiet
