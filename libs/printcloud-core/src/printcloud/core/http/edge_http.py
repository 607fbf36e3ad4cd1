"""The HTTP protocol both public gateways speak: uvicorn's h11 protocol with the limits a server
facing the internet needs, which uvicorn leaves open.

- Headers: at most `MAX_HEADER_BYTES` (request line included), `MAX_HEADER_COUNT` fields and
  `MAX_LINE_BYTES` a line, else `431 headers_too_large`; they must be complete within the header
  timeout of the request's first byte, else `408 request_timeout` (a client trickling headers byte
  by byte holds nothing long).
- Bodies: a body that stops arriving for the idle timeout, or arrives slower than the minimum rate
  once its grace period is over, ends with `408 request_timeout` (or a bare close when the answer
  has begun).

Refusals are the spec's envelope with a request id of their own, written straight to the socket:
they happen where no application code has run, and the connection is closed after them: our side at
once, the client's once it closes or `LINGER_SECONDS` have passed, so that a client still sending
reads the refusal rather than a reset.

A WebSocket upgrade is handed to the WebSocket protocol (`core.http.edge_websocket`) with its head, which
that protocol parses again with limits of its own. A head it cannot parse is one it neither answers
nor closes (uvicorn never sends what its parser put aside), and the header timeout no longer
watches the connection: so the line limit here is never above the WebSocket parser's, and a head
the WebSocket protocol still makes no request of is refused here with `400 invalid_request`.

A server can also refuse WebSocket upgrades here (`UpgradeRefusal`, speed machinery:
docs/performance.md, "Speed machinery"): the agent-gateway refuses agents while too many are
connecting, and most attempts of a reconnect storm are refused; here a refusal costs the parse of
one request head, where the WebSocket protocol would build a handshake, parse the head again and
run the application to answer it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets import http11 as websocket_http

from printcloud.contracts.errors import ApiError
from printcloud.core.http import uvicorn_websocket
from printcloud.core.http.edge_websocket import EdgeWebSocketProtocol
from printcloud.core.http.error_envelope import error_bytes, error_head
from printcloud.core.settings import EdgeSettings
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, new_request_id, request_id_for

MAX_HEADER_BYTES = 16 * 1024
MAX_HEADER_COUNT = 100
# One line, the request line or a header field, with its CRLF: never more than the WebSocket
# parser takes (8 KiB unless its environment variable lowers it).
MAX_LINE_BYTES = min(8 * 1024, websocket_http.MAX_LINE_LENGTH)
# h11's own limit on an incomplete head, above ours so that ours answers first.
H11_BUFFER_BYTES = 2 * MAX_HEADER_BYTES
# How often a connection with a request under way is looked at.
WATCH_INTERVAL_SECONDS = 0.5
# After a refusal the connection reads and drops what the client still sends, for this long at
# most, before it closes: closed with bytes unread, the socket would answer them with a reset,
# which can reach the client before it has read the refusal.
LINGER_SECONDS = 5.0

_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class EdgeLimits:
    header_timeout_seconds: float = 10.0
    body_idle_timeout_seconds: float = 15.0
    body_grace_seconds: float = 10.0
    body_min_bytes_per_second: int = 64 * 1024


DEFAULT_LIMITS = EdgeLimits()


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str
    # Whole seconds, for a client told when to come back.
    retry_after_seconds: int | None = None


class UpgradeRefusal(Protocol):
    """Speed machinery: a busy server's refusal from the head already parsed (docs/performance.md)."""

    def __call__(self, path: str) -> Refusal | None:
        """Given the path of a WebSocket upgrade request, the refusal to answer it with, or None
        to serve it."""


def serve_every_upgrade(path: str) -> Refusal | None:
    return None


def envelope(
    code: str, message: str, request_id: str | None = None, retry_after_seconds: int | None = None
) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """Headers and body of a refusal in the spec's envelope, with a request id of its own unless
    given the client's."""
    request_id = request_id or new_request_id()
    body = error_bytes(ApiError(code, message), request_id)
    headers = [
        *((name.encode(), value.encode()) for name, value in error_head(request_id)),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    if retry_after_seconds is not None:
        headers.append((b"retry-after", str(retry_after_seconds).encode()))
    return headers, body


def refusal(
    status: int, code: str, message: str, request_id: str | None = None, retry_after_seconds: int | None = None
) -> bytes:
    """A complete HTTP/1.1 response, for the socket itself."""
    headers, body = envelope(code, message, request_id, retry_after_seconds)
    lines = [f"HTTP/1.1 {status} {_REASONS[status]}".encode(), *(name + b": " + value for name, value in headers)]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class GuardedH11Protocol(H11Protocol):
    """Built for a set of limits by `protocol_for`; uvicorn makes one per connection."""

    limits: ClassVar[EdgeLimits] = DEFAULT_LIMITS
    upgrade_refusal: ClassVar[UpgradeRefusal] = staticmethod(serve_every_upgrade)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app = _HeadCheck(self.app)
        self._head_started: float | None = None
        self._head_bytes = 0
        self._head_tail = b""
        self._body_started = 0.0
        self._body_bytes = 0
        self._body_seen = 0.0
        self._watch: asyncio.TimerHandle | None = None
        self._lingering: asyncio.TimerHandle | None = None

    # Headers: counted, and timed from the connection's start or the first byte of each later request.

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvicorn's protocol narrows asyncio's parameter to the Transport its server always passes.
        super().connection_made(transport)  # type: ignore[arg-type]
        self._head_started = time.monotonic()
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._lingering is not None:
            return  # refused: what still comes is dropped
        awaiting_head = self.conn.their_state is h11.IDLE
        if awaiting_head and self._head_started is None:
            self._head_started = time.monotonic()
            self._arm()
        if awaiting_head and self._head_bytes + self._head_part(data) > H11_BUFFER_BYTES:
            # h11 would refuse it with a bare 400; whether it completes the head or not, it is too large.
            self._refuse(431, "headers_too_large", f"Request headers exceed {MAX_HEADER_BYTES} bytes.")
            return
        super().data_received(data)
        if self.transport.is_closing() or self._lingering is not None:
            return
        if self.conn.their_state is h11.IDLE:
            self._head_bytes += len(data)
            self._head_tail = data[-3:]
            if self._head_bytes > MAX_HEADER_BYTES:
                self._refuse(431, "headers_too_large", f"Request headers exceed {MAX_HEADER_BYTES} bytes.")
        elif self.conn.their_state is h11.SEND_BODY:
            if awaiting_head:
                self._body_started = time.monotonic()
                self._body_bytes = 0
            self._body_bytes += len(data)
            self._body_seen = time.monotonic()

    def _head_part(self, data: bytes) -> int:
        """How many bytes of `data` belong to the request head: up to its blank line (which may
        have begun in the previous read), or all of them. A body can arrive in the same read."""
        end = (self._head_tail + data).find(b"\r\n\r\n")
        return len(data) if end < 0 else end + 4 - len(self._head_tail)

    def handle_events(self) -> None:
        before = self.conn.their_state
        super().handle_events()
        if before is h11.IDLE and self.conn.their_state is not h11.IDLE:
            self._head_started = None
            self._head_bytes = 0
            self._head_tail = b""

    def send_400_response(self, msg: str) -> None:
        self._refuse(400, "invalid_request", "The request is not valid HTTP/1.1.")

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._head_started = None
        self._head_bytes = 0
        self._head_tail = b""

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        request_id = request_id_for(_header(self.headers, REQUEST_ID_HEADER.encode()))
        reason = head_refused(event.method, event.target, self.headers)
        if reason is not None:
            self._refuse(431, "headers_too_large", reason, request_id)
            return
        refused = self.upgrade_refusal(event.target.decode("ascii", "replace").partition("?")[0])
        if refused is not None:
            self._refuse(refused.status, refused.code, refused.message, request_id, refused.retry_after_seconds)
            return
        super().handle_websocket_upgrade(event)
        websocket = self.transport.get_protocol()
        if isinstance(websocket, WebSocketsSansIOProtocol) and not uvicorn_websocket.handshake_initiated(websocket):
            # It had the whole head and made no request of it: its parser refused the head (a body,
            # say) and would leave the connection open without an answer.
            self._refuse(400, "invalid_request", "This is not a valid WebSocket handshake request.", request_id)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._lingering is not None:
            self._lingering.cancel()
        super().connection_lost(exc)

    # The watch: one timer per connection, only while a request is under way.

    def _arm(self) -> None:
        if self._watch is None:
            self._watch = self.loop.call_later(WATCH_INTERVAL_SECONDS, self._check)

    def _disarm(self) -> None:
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None

    def _check(self) -> None:
        self._watch = None
        if self.transport.is_closing():
            return
        now = time.monotonic()
        limits = self.limits
        if self._head_started is not None and now - self._head_started > limits.header_timeout_seconds:
            self._refuse(408, "request_timeout", "The request headers did not arrive in time.")
            return
        if self._awaiting_body() and self.flow.read_paused:
            # Not reading is our doing (the application has not taken what came): the client waits.
            self._body_seen = now
            self._body_started += WATCH_INTERVAL_SECONDS
        elif self._awaiting_body():
            idle = now - max(self._body_seen, self._body_started)
            elapsed = now - self._body_started
            too_slow = elapsed > limits.body_grace_seconds and (
                self._body_bytes / elapsed < limits.body_min_bytes_per_second
            )
            if idle > limits.body_idle_timeout_seconds or too_slow:
                self._refuse(408, "request_timeout", "The request body did not arrive in time.")
                return
        if self._head_started is not None or self._awaiting_body():
            self._arm()

    def _awaiting_body(self) -> bool:
        return self.conn.their_state is h11.SEND_BODY and self.cycle is not None and self.cycle.more_body

    def _refuse(
        self,
        status: int,
        code: str,
        message: str,
        request_id: str | None = None,
        retry_after_seconds: int | None = None,
    ) -> None:
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # The application is waiting for the body: tell it the client is gone, so that what it
            # would still send is dropped rather than written after our answer.
            answered = cycle.response_started
            cycle.disconnected = True
            cycle.message_event.set()
            if answered:
                self.transport.close()
                return
        self.transport.write(refusal(status, code, message, request_id, retry_after_seconds))
        self._linger()

    def _linger(self) -> None:
        """Ends the connection after a refusal: our side first, so that the client reads the
        refusal and its end; whatever it still sends is dropped until it closes or `LINGER_SECONDS`
        pass."""
        self._disarm()
        if self.transport.get_protocol() is not self or not self.transport.can_write_eof():
            # Handed to the WebSocket protocol already, what still comes would reach it: closed now.
            self.transport.close()
            return
        self.transport.write_eof()
        self._lingering = self.loop.call_later(LINGER_SECONDS, self.transport.close)


def head_refused(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why a complete request head is refused (too many fields, too many bytes, too long a line),
    or None. Lines are measured as the WebSocket protocol is handed them: `name: value` and CRLF."""
    if len(headers) > MAX_HEADER_COUNT:
        return f"A request carries at most {MAX_HEADER_COUNT} header fields."
    if sum(len(name) + len(value) + 4 for name, value in headers) > MAX_HEADER_BYTES:
        return f"Request headers exceed {MAX_HEADER_BYTES} bytes."
    if len(method) + len(target) + len(b"  HTTP/1.1\r\n") > MAX_LINE_BYTES:
        return f"The request line exceeds {MAX_LINE_BYTES} bytes."
    if any(len(name) + len(value) + 4 > MAX_LINE_BYTES for name, value in headers):
        return f"A header field exceeds {MAX_LINE_BYTES} bytes."
    return None


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    value = next((value for key, value in headers if key == name), None)
    return None if value is None else value.decode("latin-1")


class _HeadCheck:
    """The application behind the checks of a complete head (an incomplete one is measured as it
    arrives; a complete one can arrive in one packet)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        query = scope["query_string"]
        target = scope["raw_path"] + (b"?" + query if query else b"")
        reason = head_refused(scope["method"].encode(), target, scope["headers"])
        if reason is not None:
            client_id = _header(scope["headers"], REQUEST_ID_HEADER.encode())
            headers, body = envelope("headers_too_large", reason, request_id_for(client_id))
            await send({"type": "http.response.start", "status": 431, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)


def limits_from(settings: EdgeSettings) -> EdgeLimits:
    return EdgeLimits(
        header_timeout_seconds=settings.edge_header_timeout_seconds,
        body_idle_timeout_seconds=settings.edge_body_idle_timeout_seconds,
        body_grace_seconds=settings.edge_body_grace_seconds,
        body_min_bytes_per_second=settings.edge_body_min_bytes_per_second,
    )


def protocol_for(limits: EdgeLimits, upgrade_refusal: UpgradeRefusal = serve_every_upgrade) -> type[GuardedH11Protocol]:
    # staticmethod: a plain function as a class attribute would be bound to each connection.
    attributes = {"limits": limits, "upgrade_refusal": staticmethod(upgrade_refusal)}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), attributes)


def server_options(
    limits: EdgeLimits,
    upgrade_refusal: UpgradeRefusal = serve_every_upgrade,
    websocket: type[EdgeWebSocketProtocol] = EdgeWebSocketProtocol,
) -> dict[str, Any]:
    """uvicorn options for a public server: the guarded protocols and h11's buffer limit; no
    `server: uvicorn` header, which tells a scanner which flaws to try."""
    return {
        "http": protocol_for(limits, upgrade_refusal),
        "ws": websocket,
        "h11_max_incomplete_event_size": H11_BUFFER_BYTES,
        "server_header": False,
    }
