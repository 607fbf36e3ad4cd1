"""The attacks the hostile-input probe made on the gateways, rerun against the real stack."""

from __future__ import annotations

import socket
import time

import psutil

from printcloud.devstack.stack import Stack
from tests.e2e.conftest import Tenant

FORTY_MIB = 40 * 1024 * 1024


def _open(url: str, head: bytes) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=60)
    sock.sendall(head)
    return sock


def _answer(sock: socket.socket) -> tuple[int, bytes]:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    sock.close()
    return int(received.split(b" ", 2)[1]), received


def test_stalled_bodies_declared_huge_hold_no_memory_and_time_out(stack: Stack, tenant: Tenant) -> None:
    gateway = psutil.Process(stack.services["api-gateway"].process.pid)
    before = gateway.memory_info().rss
    head = (
        f"POST /v1/printjobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {tenant.test_key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {FORTY_MIB}\r\n\r\n"
    ).encode()
    started = time.monotonic()
    sockets = [_open(stack.api_url, head) for _ in range(5)]
    answers = [_answer(sock) for sock in sockets]
    waited = time.monotonic() - started
    grown = gateway.memory_info().rss - before

    statuses = sorted(status for status, _ in answers)
    # Four take the large-body slots and time out; the fifth finds none free.
    assert statuses == [408, 408, 408, 408, 503], statuses
    assert all(b'"request_timeout"' in body for status, body in answers if status == 408)
    assert grown < 20 * 1024 * 1024, f"the gateway grew by {grown / 2**20:.0f} MiB"
    print(f"5 stalled 40 MiB bodies: answered within {waited:.1f}s, gateway grew {grown / 2**20:.1f} MiB")


def test_trickled_headers_end_in_408(stack: Stack) -> None:
    sock = _open(stack.api_url, b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\n")
    deadline = time.monotonic() + 30
    # A byte now and then, never the end of the headers; the gateway must end it.
    try:
        while time.monotonic() < deadline:
            sock.sendall(b"X")
            sock.settimeout(0.5)
            try:
                if sock.recv(65536, socket.MSG_PEEK):
                    break
            except TimeoutError:
                continue
    except (BrokenPipeError, ConnectionResetError):
        pass
    sock.settimeout(30)
    status, body = _answer(sock)
    assert status == 408
    assert b'"request_timeout"' in body


def test_a_websocket_handshake_with_a_huge_credential_gets_431(stack: Stack) -> None:
    head = (
        b"GET /agent/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Protocol: printcloud.agent.v1\r\nAuthorization: Bearer " + b"a" * 100_000 + b"\r\n\r\n"
    )
    status, body = _answer(_open(stack.agent_gateway_url, head))
    assert status == 431
    assert b'"headers_too_large"' in body


def test_an_upgrade_with_one_header_line_over_8_kib_is_answered_and_closed_on_both_ports(stack: Stack) -> None:
    # The whole head under 16 KiB: only the line is too long. It used to be neither answered nor
    # closed, past the header timeout, with no credential needed.
    head = (
        b"GET /agent/v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Authorization: Bearer " + b"a" * 9000 + b"\r\n\r\n"
    )
    sockets = [_open(url, head) for url in (stack.agent_gateway_url, stack.api_url) for _ in range(3)]
    for sock in sockets:
        sock.settimeout(30)  # the header timeout is 10 s; an answer never comes later than that
    answers = [_answer(sock) for sock in sockets]
    assert [status for status, _ in answers] == [431] * 6
    assert all(b'"headers_too_large"' in body and b"nosniff" in body for _, body in answers)
