"""The public servers' protocol limits, against a real uvicorn server on 127.0.0.1 spoken to over
raw sockets, the way a hostile client would."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from printcloud.core.edge_http import MAX_HEADER_BYTES, EdgeLimits, Refusal, server_options
from printcloud.core.ops import bound_port, serve_app, stop_app

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


async def _exchange(port: int, *parts: bytes, pause: float = 0.0) -> tuple[bytes, float]:
    """Sends `parts`, waiting `pause` for an answer after each (and sending no more once one
    comes), then reads until the server closes; returns the answer and how long after the last
    part sent the server closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = b""
    loop = asyncio.get_running_loop()
    sent = loop.time()
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
            sent = loop.time()
            if pause:
                with contextlib.suppress(TimeoutError):
                    answer = await asyncio.wait_for(reader.read(65536), pause)
                if answer:
                    break
        answer += await asyncio.wait_for(reader.read(), 30)
        return answer, loop.time() - sent
    finally:
        writer.close()


def _status_and_error(answer: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), json.loads(body)["error"], headers


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
    answer, _ = await _exchange(port, head + (b"\r\n" if complete else b""))
    status, error, headers = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["request_id"] == headers["x-request-id"]
    assert headers["connection"] == "close"


@pytest.mark.parametrize("size", [MAX_HEADER_BYTES, 100 * 1024])
async def test_a_websocket_handshake_with_oversized_headers_gets_431(port: int, size: int) -> None:
    head = (
        b"GET /agent/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Authorization: Bearer " + b"a" * size + b"\r\n\r\n"
    )
    answer, _ = await _exchange(port, head)
    assert _status_and_error(answer)[:2][0] == 431


async def test_more_header_fields_than_allowed_get_431(port: int) -> None:
    fields = b"".join(b"X-F%d: v\r\n" % n for n in range(101))
    answer, _ = await _exchange(port, b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n" + fields + b"\r\n")
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (431, "headers_too_large")
    assert error["message"] == "A request carries at most 100 header fields."


async def test_headers_trickled_byte_by_byte_end_in_408(port: int) -> None:
    head = b"GET /upload HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 40
    answer, _ = await _exchange(port, *(head[i : i + 1] for i in range(len(head))), pause=0.05)
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (408, "request_timeout")
    assert error["message"] == "The request headers did not arrive in time."


@pytest.mark.parametrize("before", [b"", b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])
async def test_a_request_that_is_not_http_gets_400_in_the_envelope(port: int, before: bytes) -> None:
    answer, _ = await _exchange(port, before + b"HELLO THERE\r\n\r\n")
    last = answer[answer.rindex(b"HTTP/1.1 ") :]
    status, error, _ = _status_and_error(last)
    assert (status, error["code"]) == (400, "invalid_request")


async def test_a_connection_that_sends_nothing_is_closed_with_408(port: int) -> None:
    answer, waited = await _exchange(port)
    assert _status_and_error(answer)[0] == 408
    assert waited < 5


async def test_a_body_that_stops_arriving_ends_in_408(port: int) -> None:
    answer, _ = await _exchange(
        port, b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n" + b"a" * 10
    )
    status, error, _ = _status_and_error(answer)
    assert (status, error["code"]) == (408, "request_timeout")
    assert error["message"] == "The request body did not arrive in time."


async def test_a_body_slower_than_the_minimum_rate_ends_in_408(port: int) -> None:
    head = b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
    # 100 bytes every 0.2 s: 500 bytes/s, under the 1,000 required once the grace second is over,
    # yet never idle long enough for the idle timeout.
    answer, _ = await _exchange(port, head, *([b"a" * 100] * 40), pause=0.2)
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
        handshake = (
            b"Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        answer, _ = await _exchange(port, b"GET /busy?attempt=2 HTTP/1.1\r\n" + handshake)
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
