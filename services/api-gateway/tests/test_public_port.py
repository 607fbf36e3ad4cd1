"""The api-gateway's public port as a hostile client meets it, on a real server: WebSocket heads
answered and closed, the security headers on every answer, nothing echoed, redirects that never
name the host the client sent, and one credential per request."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.core.http.edge_http import MAX_LINE_BYTES
from printcloud.core.http.error_envelope import NO_CONTENT_POLICY, PAGE_POLICY
from tests.support.raw_http import WEBSOCKET_HANDSHAKE, exchange, parse_answer

if TYPE_CHECKING:
    from conftest import AssertError, Tenant


def _port(server_url: str) -> int:
    return int(server_url.rsplit(":", 1)[1])


async def _raw(server_url: str, head: bytes) -> tuple[int, dict[str, str], bytes]:
    answer = parse_answer((await exchange(_port(server_url), head))[0])
    return answer.status, answer.headers, answer.body


@pytest.mark.parametrize("path", [b"/dashboard/overview", b"/v1/printers", b"/"])
async def test_an_upgrade_with_a_header_line_over_the_limit_is_answered_431_and_closed(
    server_url: str, path: bytes
) -> None:
    # One line over 8 KiB, the whole head well under 16 KiB: it used to be neither answered nor closed.
    line = b"Cookie: " + b"a" * MAX_LINE_BYTES + b"\r\n"
    answer = parse_answer(
        (await exchange(_port(server_url), b"GET " + path + b" HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + line + b"\r\n"))[0]
    )
    assert (answer.status, answer.error["code"]) == (431, "headers_too_large")
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_a_websocket_upgrade_is_a_404_in_the_envelope(server_url: str) -> None:
    head = b"GET /v1/printers HTTP/1.1\r\n" + WEBSOCKET_HANDSHAKE + b"X-Request-Id: probe.ws-1\r\n\r\n"
    answer = parse_answer((await exchange(_port(server_url), head))[0])
    assert answer.status == 404
    assert answer.error == {
        "code": "not_found",
        "message": "No WebSocket endpoint at this path.",
        "request_id": "probe.ws-1",
    }
    assert answer.headers["x-content-type-options"] == "nosniff"


async def test_every_answer_carries_the_security_headers_and_html_pages_the_page_policy(
    server_url: str, tenant: Tenant
) -> None:
    key = await tenant.make_key()
    async with httpx.AsyncClient(base_url=server_url) as http:
        answers = {
            "json": await http.get("/v1/printers", headers={"Authorization": f"Bearer {key}"}),
            "401": await http.get("/v1/whoami"),
            "404": await http.get("/v1/nowhere"),
            "405": await http.delete("/healthz"),
            "health": await http.get("/healthz"),
            "openapi": await http.get("/v1/openapi.json"),
            "css": await http.get("/dashboard/static/dashboard.css"),
            "page": await http.get("/dashboard/sign-in"),
            "error page": await http.post("/dashboard/sign-in", data={"email": "not an address"}),
            "redirect": await http.get("/dashboard"),
        }
    for name, answer in answers.items():
        html = answer.headers.get("content-type", "").startswith("text/html")
        assert answer.headers["x-content-type-options"] == "nosniff", name
        assert answer.headers["x-frame-options"] == "DENY", name
        assert answer.headers["referrer-policy"] == "same-origin", name
        assert answer.headers["content-security-policy"] == (PAGE_POLICY if html else NO_CONTENT_POLICY), name
        assert answer.headers["x-request-id"], name
        assert "server" not in answer.headers, name
    assert {name for name, answer in answers.items() if "text/html" in answer.headers.get("content-type", "")} == {
        "page",
        "error page",
    }
    assert [answers[name].status_code for name in ("json", "401", "404", "405", "error page", "redirect")] == [
        200, 401, 404, 405, 400, 303,
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path",
    [
        "/dashboard/jobs/<script>alert(1)</script>",
        "/dashboard/jobs/%3Cscript%3Ealert(1)%3C%2Fscript%3E/x",
        "/v1/<script>alert(1)</script>",
        "/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
    ],
)
async def test_an_unknown_path_is_not_echoed(server_url: str, path: str) -> None:
    status, _, body = await _raw(server_url, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    assert status == 404
    # The dashboard's 404 page has script and image tags of its own; none of the path's text may appear.
    assert b"alert(1)" not in body and b"onerror" not in body and b"%3C" not in body


@pytest.mark.parametrize(
    ("target", "redirected"),
    [
        # The dashboard's own pages answer a browser's GET with 303, as its forms' redirects do.
        ("/dashboard/overview/", (303, "/dashboard/overview")),
        ("/v1/printers/?limit=5", (307, "/v1/printers?limit=5")),
        ("/healthz/", (307, "/healthz")),
    ],
)
async def test_a_trailing_slash_redirect_names_a_path_never_the_host_the_client_sent(
    server_url: str, target: str, redirected: tuple[int, str]
) -> None:
    head = f"GET {target} HTTP/1.1\r\nHost: evil.invalid\r\nConnection: close\r\n\r\n".encode()
    status, headers, _ = await _raw(server_url, head)
    assert (status, headers["location"]) == redirected


async def test_a_path_no_route_serves_either_way_is_a_404_without_a_location(server_url: str) -> None:
    head = b"GET //evil.invalid/dashboard/overview/ HTTP/1.1\r\nHost: evil.invalid\r\nConnection: close\r\n\r\n"
    status, headers, _ = await _raw(server_url, head)
    assert status == 404 and "location" not in headers


@pytest.mark.parametrize("order", ["valid-first", "valid-last", "both-valid"])
async def test_two_authorization_headers_are_refused(
    server_url: str, tenant: Tenant, assert_error: AssertError, order: str
) -> None:
    key = f"Bearer {await tenant.make_key()}"
    other = f"Bearer {await tenant.make_key()}" if order == "both-valid" else "Bearer svc_test_bogus"
    pair = (
        [("Authorization", other), ("Authorization", key)]
        if order == "valid-last"
        else [("Authorization", key), ("Authorization", other)]
    )
    async with httpx.AsyncClient(base_url=server_url) as http:
        answer = await http.get("/v1/whoami", headers=pair)
    error = assert_error(answer, 400, "invalid_request")
    assert error["message"] == "Send one `Authorization` header, not several."
    assert "ratelimit-limit" in answer.headers  # counted against the client, like any refused credential
