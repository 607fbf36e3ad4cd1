"""The public servers' protocol limits, against a real uvicorn server on 127.0.0.1 spoken to over
raw sockets, the way a hostile client would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from websockets import http11 as websocket_http

from printcloud.core.http.edge_http import MAX_HEADER_BYTES, MAX_LINE_BYTES, EdgeLimits, Refusal, server_options
from printcloud.core.telemetry.ops import bound_port, serve_app, stop_app
from tests.support.raw_http import WEBSOCKET_HANDSHAKE, exchange, parse_answer

LIMITS = EdgeLimits(
    header_timeout_seconds=1.0, body_idle_timeout_seconds=1.0, body_grace_seconds=1.0, body_min_bytes_per_second=1000
)


async def _echo_length(request: Request) -> JSONResponse:
    return JSONResponse({"received": len(await request.body())})


@pytest.fixture
async def port() -> AsyncIterator[int]:
    app = Starlette(routes=[Route("/upload", _echo_length, methods=["POST"])])
    server, task = await serve_app(app, "127.0.0.1", 0, "edge-test", **server_options(LIMITS))
    yield bound_port(server)
    await stop_app(server, task)


def _status_and_error(answer: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
    parsed = parse_answer(answer)
    return parsed.status, parsed.error, parsed.headers


async def test_an_ordinary_request_is_served_and_the_connection_kept(port: int) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(2):
        writer.write(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200")
        assert json.loads(await reader.readexactly(int(head.split(b"content-length: ")[1].split(b"\r\n")[0]))) == {
            "received": 5
        }
    writer.close()


@pytest.mark.parametrize("split", [None, 2, 40])
async def test_a_large_body_in_the_same_read_as_its_head_is_served(port: int, split: int | None) -> None:
    body = b"a" * (3 * MAX_HEADER_BYTES)
    request = b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    # A request before, so the connection is a kept-alive one, as a client's usually is.
    writer.write(b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    await reader.readuntil(b"}")
    if split is None:
        writer.write(request)
    else:
        # The head's blank line split across two reads, the body in the second.
        cut = request.index(b"\r\n\r\n") + (2 if split == 2 else 4 + split)
        writer.write(request[:cut])
        await writer.drain()
        writer.write(request[cut:])
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    writer.close()
    assert head.startswith(b"HTTP/1.1 200"), head


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES, 100 * 1024])
@pytest.mark.parametrize("complete", [True, False])
async def test_headers_over_the_size_limit_get_431(port: int, size: int, complete: bool) -> None:
    head = b"GET /upload HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * size + b"\r\n"
    answer, _ = await exchange(port, head + (b"\r\n" if complete else b""))
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["request_id"] == headers["x-request-id"]
    assert headers["connection"] == "close"


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES, 100 * 1024])
async def test_a_websocket_handshake_with_oversized_headers_gets_431(port: int, size: int) -> None:
    head = (
        b"GET /agent/v1/ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + b"Authorization: Bearer " + b"a" * size + b"\r\n\r\n"
    )
    answer, _ = await exchange(port, head)
    assert _status_and_error(answer)[:2][0] == 431


def _refused_while_still_sending(port: int) -> bytes:
    """An oversized head, then megabytes more as a client uploading would: what it reads back."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"POST /upload HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * (3 * MAX_HEADER_BYTES))
        with contextlib.suppress(OSError):  # a server gone would refuse them: the read below says so
            for _ in range(64):
                sock.sendall(b"b" * 65536)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


async def test_a_refusal_reaches_a_client_that_is_still_sending(port: int) -> None:
    # Closed with the client's bytes unread, the socket would answer them with a reset, which
    # discards the refusal before the client reads it.
    answer = await asyncio.to_thread(_refused_while_still_sending, port)
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")


async def test_more_header_fields_than_allowed_get_431(port: int) -> None:
    fields = b"".join(b"X-F%d: v\r\n" % n for n in range(101))
    answer, _ = await exchange(port, b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + fields + b"\r\n")
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["message"] == "A request carries at most 100 header fields."


async def test_headers_trickled_byte_by_byte_end_in_408(port: int) -> None:
    head = b"GET /upload HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
    answer, _ = await exchange(port, *(head[i : i + 1] for i in range(len(head))), pause=0.05)
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (408, "request_timeout")
    assert error["message"] == "The request headers did not arrive in time."


@pytest.mark.parametrize("before", [b"", b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])
async def test_a_request_that_is_not_http_gets_400_in_the_envelope(port: int, before: bytes) -> None:
    answer, _ = await exchange(port, before + b"HELLO THERE\r\n\r\n")
    last = answer[answer.rindex(b"HTTP/1.1 ") :]
    status, error, _ = _status_and_error(last)
    assert (status, error["code"]) == (400, "invalid_request")


async def test_a_connection_that_sends_nothing_is_closed_with_408(port: int) -> None:
    answer, waited = await exchange(port)
    assert _status_and_error(answer)[0] == 408
    assert waited < 5


async def test_a_body_that_stops_arriving_ends_in_408(port: int) -> None:
    answer, _ = await exchange(
        port, b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n" + b"a" * 10
    )
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (408, "request_timeout")
    assert error["message"] == "The request body did not arrive in time."


async def test_a_body_slower_than_the_minimum_rate_ends_in_408(port: int) -> None:
    head = b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
    # 100 bytes every 0.2 s: 500 bytes/s, under the 1,000 required once the grace second is over,
    # yet never idle long enough for the idle timeout.
    answer, _ = await exchange(port, head, *([b"a" * 100] * 40), pause=0.2)
    assert _status_and_error(answer)[:2][0] == 408


async def test_an_upgrade_the_server_refuses_is_answered_before_any_websocket_exists() -> None:
    refused_paths: list[str] = []

    def refuse_busy(path: str) -> Refusal | None:
        if path != "/busy":
            return None
        refused_paths.append(path)
        return Refusal(503, "service_unavailable", "Come back later.")

    async def accept(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        await receive()

    server, task = await serve_app(accept, "127.0.0.1", 0, "edge-test", **server_options(LIMITS, refuse_busy))
    try:
        port = bound_port(server)
        handshake = WEBSOCKET_HANDSHAKE + b"\r\n"
        answer, _ = await exchange(port, b"GET /busy?attempt=2 HTTP/1.1\r\n" + handshake)
        status, error, headers = _status_and_error(answer)
        assert (status, error["code"], error["message"]) == (503, "service_unavailable", "Come back later.")
        assert error["request_id"] == headers["x-request-id"]
        assert refused_paths == ["/busy"]  # the path, without its query
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /free HTTP/1.1\r\n" + handshake)
        assert (await asyncio.wait_for(reader.readline(), 30)).startswith(b"HTTP/1.1 101 ")
        writer.close()
    finally:
        await stop_app(server, task)


# --- WebSocket heads: the WebSocket protocol parses the head again, with limits of its own ---


async def _accept_websockets(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["type"] == "websocket":
        await receive()
        await send({"type": "websocket.accept"})
        await receive()


@pytest.fixture
async def websocket_port() -> AsyncIterator[int]:
    server, task = await serve_app(_accept_websockets, "127.0.0.1", 0, "edge-test", **server_options(LIMITS))
    yield bound_port(server)
    await stop_app(server, task)


def _padded(name: bytes, line_bytes: int) -> bytes:
    """A header line of exactly `line_bytes`, its CRLF included."""
    return name + b": " + b"a" * (line_bytes - len(name) - 4) + b"\r\n"


async def _first_line(port: int, head: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head)
        return await asyncio.wait_for(reader.readline(), 10)
    finally:
        writer.close()


@pytest.mark.parametrize("name", [b"Authorization", b"X-Padding", b"Sec-WebSocket-Protocol"])
async def test_an_upgrade_with_a_header_line_over_the_limit_is_answered_431_and_closed(
    websocket_port: int, name: bytes
) -> None:
    # Under the whole head's 16 KiB: only the line is too long, which the WebSocket parser refused
    # without a word while the connection stayed open.
    head = b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + _padded(name, MAX_LINE_BYTES + 1) + b"\r\n"
    assert len(head) < MAX_HEADER_BYTES
    answer, _ = await exchange(websocket_port, head)
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["message"] == f"A header field exceeds {MAX_LINE_BYTES} bytes."
    assert error["request_id"] == headers["x-request-id"]
    assert headers["x-content-type-options"] == "nosniff"


async def test_an_upgrade_with_a_header_line_at_the_limit_is_served(websocket_port: int) -> None:
    head = b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + _padded(b"X-Padding", MAX_LINE_BYTES) + b"\r\n"
    assert (await _first_line(websocket_port, head)).startswith(b"HTTP/1.1 101 ")


async def test_an_upgrade_with_a_request_line_over_the_limit_is_answered_431(websocket_port: int) -> None:
    target = b"/ws?" + b"q" * MAX_LINE_BYTES
    answer, _ = await exchange(websocket_port, b"GET " + target + b" HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + b"\r\n")
    status, error, _ = _status_and_error(answer)
    assert (status, error["message"]) == (431, f"The request line exceeds {MAX_LINE_BYTES} bytes.")


async def test_an_upgrade_with_more_header_fields_than_allowed_gets_431(websocket_port: int) -> None:
    fields = b"".join(b"X-F%d: v\r\n" % n for n in range(100))
    answer, _ = await exchange(websocket_port, b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + fields + b"\r\n")
    status, error, _ = _status_and_error(answer)
    assert (status, error["message"]) == (431, "A request carries at most 100 header fields.")


async def test_a_plain_request_with_a_header_line_over_the_limit_gets_431_too(port: int) -> None:
    head = b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + _padded(b"Cookie", MAX_LINE_BYTES + 1)
    answer, _ = await exchange(port, head + b"\r\n")
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["request_id"] == headers["x-request-id"]


@pytest.mark.parametrize(
    "extra", [b"Content-Length: 5\r\n", b"Transfer-Encoding: chunked\r\n"], ids=["body", "chunked"]
)
async def test_an_upgrade_the_websocket_parser_refuses_is_answered_400_and_closed(
    websocket_port: int, extra: bytes
) -> None:
    answer, _ = await exchange(websocket_port, b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + extra + b"\r\n")
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (400, "invalid_request")
    assert error["request_id"] == headers["x-request-id"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", b""),
        (b"dGhlIHNhbXBsZSBub25jZQ==", b"<script>"),
        (b"Sec-WebSocket-Version: 13", b"Sec-WebSocket-Version: 8"),
    ],
    ids=["no-key", "bad-key", "old-version"],
)
async def test_handshakes_the_websocket_library_refuses_are_answered_in_the_envelope(
    websocket_port: int, old: bytes, new: bytes
) -> None:
    head = WEBSOCKET_HANDSHAKE.replace(old, new)
    answer, _ = await exchange(websocket_port, b"GET /ws HTTP/1.1\r\n" + head + b"X-Request-Id: probe-1\r\n\r\n")
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (400, "invalid_request")
    assert headers["x-content-type-options"] == "nosniff"
    # The library's own text quotes the header values it refused; the envelope says none of them.
    assert "<script>" not in error["message"] and "8" not in error["message"]


async def test_an_application_that_closes_before_accepting_refuses_in_the_envelope() -> None:
    async def close_at_once(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send({"type": "websocket.close"})

    server, task = await serve_app(close_at_once, "127.0.0.1", 0, "edge-test", **server_options(LIMITS))
    try:
        answer, _ = await exchange(bound_port(server), b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + b"\r\n")
    finally:
        await stop_app(server, task)
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (403, "forbidden")
    assert error["request_id"] == headers["x-request-id"]


async def test_an_upgrade_refusal_takes_the_clients_request_id() -> None:
    def refuse_all(path: str) -> Refusal | None:
        return Refusal(503, "service_unavailable", "Come back later.")

    server, task = await serve_app(
        _accept_websockets, "127.0.0.1", 0, "edge-test", **server_options(LIMITS, refuse_all)
    )
    try:
        head = b"GET /ws HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + b"X-Request-Id: agent-42.retry-3\r\n\r\n"
        answer, _ = await exchange(bound_port(server), head)
    finally:
        await stop_app(server, task)
    _, error, headers = _status_and_error(answer)
    assert error["request_id"] == headers["x-request-id"] == "agent-42.retry-3"


def test_the_line_limit_is_never_above_the_websocket_parsers() -> None:
    assert MAX_LINE_BYTES <= websocket_http.MAX_LINE_LENGTH
