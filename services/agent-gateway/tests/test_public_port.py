"""The agent-gateway's public port as a hostile client meets it, on a real server: every error in the
envelope with its request id, the security headers on every answer, nothing echoed, no redirect
built from `Host`, and WebSocket heads the WebSocket parser would refuse answered and closed."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.agent_gateway.domain.file_tokens import ComputerScope, mint_token
from printcloud.core.http.edge_http import MAX_HEADER_BYTES, MAX_LINE_BYTES
from printcloud.protocol.constants import WS_PATH
from tests.support.raw_http import WEBSOCKET_HANDSHAKE, exchange, parse_answer

if TYPE_CHECKING:
    from conftest import Stack

CREDENTIAL = "agent-credential-1"
JOB_ID = "0190a000-0000-7000-8000-0000000000a1"
SECRET = "test-secret-of-32-characters-at-least"
THE_COMPUTER = ComputerScope("0190a000-0000-7000-8000-000000000001", "o", "test")
AGENT_HANDSHAKE = (
    f"GET {WS_PATH} HTTP/1.1\r\n".encode() + WEBSOCKET_HANDSHAKE + b"Sec-WebSocket-Protocol: printcloud.agent.v1\r\n"
)


def _port(stack: Stack) -> int:
    return int(stack.url.rsplit(":", 1)[1])


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/agent/v1/nowhere", 404, "not_found"),
        ("POST", "/healthz", 405, "method_not_allowed"),
        ("GET", f"/agent/v1/jobs/{JOB_ID}/file", 401, "unauthorized"),
        ("GET", f"/agent/v1/jobs/{JOB_ID}/file?token=forged", 403, "forbidden"),
    ],
)
async def test_every_http_error_carries_its_request_id_and_the_security_headers(
    stack: Stack, method: str, path: str, status: int, code: str
) -> None:
    async with httpx.AsyncClient(base_url=stack.url) as http:
        minted = await http.request(method, path)
        echoed = await http.request(method, path, headers={"X-Request-Id": "agent-7.download-2"})
    for answer in (minted, echoed):
        assert answer.status_code == status
        error = answer.json()["error"]
        assert (error["code"], error["request_id"]) == (code, answer.headers["x-request-id"])
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["content-security-policy"].startswith("default-src 'none'")
    assert minted.headers["x-request-id"].startswith("req_")
    assert echoed.headers["x-request-id"] == "agent-7.download-2"


async def test_successes_carry_the_security_headers_too(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-1.7")
    stack.jobs.jobs[JOB_ID].job.state = "sent"
    token = mint_token(SECRET, JOB_ID, THE_COMPUTER, int(time.time()) + 60)
    async with httpx.AsyncClient(base_url=stack.url) as http:
        answers = [await http.get("/healthz"), await http.get(f"/agent/v1/jobs/{JOB_ID}/file", params={"token": token})]
    for answer in answers:
        assert answer.status_code == 200
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["x-frame-options"] == "DENY"
        assert "x-request-id" in answer.headers
        assert "server" not in answer.headers


async def test_an_unknown_path_is_not_echoed(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url) as http:
        answer = await http.get("/agent/v1/<script>alert(1)</script>")
    assert answer.status_code == 404
    assert "script" not in answer.text and "alert" not in answer.text


async def test_a_trailing_slash_is_a_404_not_a_redirect_to_the_host_the_client_named(stack: Stack) -> None:
    answer = parse_answer(
        (await exchange(_port(stack), b"GET /healthz/ HTTP/1.1\r\nHost: evil.invalid\r\nConnection: close\r\n\r\n"))[0]
    )
    assert answer.status == 404
    assert "location" not in answer.headers
    assert b"evil" not in answer.body


@pytest.mark.parametrize(
    "extra",
    [
        b"Authorization: Bearer " + b"a" * MAX_LINE_BYTES + b"\r\n",  # one line: under the whole head's limit
        b"".join(b"X-F%d: v\r\n" % n for n in range(100)),  # too many lines
        b"X-Padding: " + b"a" * MAX_HEADER_BYTES + b"\r\n",  # the whole head
    ],
    ids=["line", "lines", "head"],
)
async def test_an_agent_upgrade_with_headers_too_large_is_answered_431_and_closed(stack: Stack, extra: bytes) -> None:
    answer = parse_answer((await exchange(_port(stack), AGENT_HANDSHAKE + extra + b"\r\n"))[0])
    assert (answer.status, answer.error["code"]) == (431, "headers_too_large")
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert stack.recorder.named("AuthenticateAgent") == []


async def test_an_agent_upgrade_the_websocket_library_refuses_is_answered_in_the_envelope(stack: Stack) -> None:
    head = AGENT_HANDSHAKE.replace(b"Sec-WebSocket-Version: 13", b"Sec-WebSocket-Version: 7")
    answer = parse_answer((await exchange(_port(stack), head + b"\r\n"))[0])
    assert (answer.status, answer.error["code"]) == (400, "invalid_request")
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_two_authorization_headers_on_an_agent_upgrade_are_refused_before_either_is_tried(stack: Stack) -> None:
    credentials = f"Authorization: Bearer {CREDENTIAL}\r\nAuthorization: Bearer forged\r\n".encode()
    answer = parse_answer((await exchange(_port(stack), AGENT_HANDSHAKE + credentials + b"\r\n"))[0])
    assert (answer.status, answer.error["code"]) == (400, "invalid_request")
    assert answer.error["message"] == "Send one `Authorization` header, not several."
    assert stack.recorder.named("AuthenticateAgent") == []
