"""Bodies built to hurt the gateway: each answers its envelope, never a 500."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import httpx
import pytest
from starlette.types import Message

from printcloud.api_gateway.transport import bodies
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app

if TYPE_CHECKING:
    from conftest import AssertError, Tenant


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}", "Content-Type": "application/json"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '{"title": ' + "[" * 1000 + "]" * 1000 + "}",
            "The body is not valid JSON: JSON nested deeper than 32 levels.",
        ),
        ('{"options": {"pages": ' + "9" * 5000 + "}}", "The body is not valid JSON: a number has more than 30 digits."),
        ('{"qty": NaN}', "The body is not valid JSON: NaN is not valid JSON."),
    ],
)
async def test_a_body_beyond_the_parser_bounds_is_400(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, body: str, message: str
) -> None:
    error = assert_error(await client.post("/v1/printjobs", content=body, headers=auth), 400, "invalid_request")
    assert error["message"] == message


async def test_a_declared_length_too_long_to_be_a_number_is_413(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    headers = {**auth, "Content-Length": "9" * 5000}
    assert_error(await client.post("/v1/printjobs", content=b"{}", headers=headers), 413, "content_too_large")


async def test_large_bodies_beyond_the_free_slots_are_refused_with_503(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    large = b'{"title": "' + b"a" * bodies.LARGE_BODY_BYTES + b'"}'
    held = [bodies.LARGE_BODIES.held() for _ in range(bodies.MAX_CONCURRENT_LARGE_BODIES)]
    for slot in held:
        slot.__enter__()
    try:
        refused = await client.post("/v1/printjobs", content=large, headers=auth)
        small = await client.post("/v1/printjobs", content=b"{}", headers=auth)
    finally:
        for slot in held:
            slot.__exit__(None, None, None)
    assert_error(refused, 503, "service_unavailable")
    assert small.status_code == 400, "small bodies never wait for a slot"
    assert (await client.post("/v1/printjobs", content=large, headers=auth)).status_code == 400


SOME_ID = "018f0000-0000-7000-8000-000000000001"


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/v1/printjobs", {"printerId": SOME_ID, "title": "a\u0000b"}, "title"),
        ("POST", "/v1/printjobs", {"title": "t", "source": "\ud800"}, "source"),
        ("POST", "/v1/printjobs", {"options": {"paper": "A4\u0000"}}, "options.paper"),
        (
            "POST",
            "/v1/printjobs",
            {"authentication": {"type": "BasicAuth", "credentials": {"user": "u\u0000", "pass": "p"}}},
            "authentication.credentials.user",
        ),
        ("POST", "/v1/webhooks", {"url": "https://example.com/h", "description": "d\u0000"}, "description"),
        ("PATCH", f"/v1/printers/{SOME_ID}", {"remarks": "r\udfff"}, "remarks"),
        ("PATCH", f"/v1/printers/{SOME_ID}", {"customPapers": [{"name": "\u0000", "width": 1, "height": 1}]},
         "customPapers.0.name"),
        ("PATCH", f"/v1/printers/{SOME_ID}", {"defaultOptions": {"paper": "\u0000"}}, "defaultOptions.paper"),
        ("PATCH", f"/v1/computers/{SOME_ID}", {"name": "pc\u0000"}, "name"),
        ("POST", "/v1/agent/enroll", {"hostname": "host\u0000"}, "hostname"),
    ],
)  # fmt: skip
async def test_nul_and_lone_surrogates_in_any_string_field_are_400_naming_it(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    assert_error: AssertError,
    method: str,
    path: str,
    body: dict[str, object],
    field: str,
) -> None:
    content = json.dumps(body)  # escapes both as \u0000 / \ud800, as a JSON client would send them
    response = await client.request(method, path, content=content, headers=auth)
    error = assert_error(response, 400, "invalid_request")
    assert error["message"] == f"`{field}` must not contain NUL characters or unpaired surrogates."


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("createdFrom=0001-01-01T00:00:00%2B23:59", "`createdFrom` must be an ISO 8601 date-time with a time zone."),
        ("state=%00", "Invalid query parameter `state`: must not contain NUL characters or unpaired surrogates."),
        ("after=%ED%A0%80", None),
    ],
)
async def test_hostile_query_values_are_400(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, query: str, message: str | None
) -> None:
    error = assert_error(await client.get(f"/v1/printjobs?{query}", headers=auth), 400, "invalid_request")
    if message is not None:
        assert error["message"] == message


async def test_a_client_gone_before_its_body_ended_is_a_400_not_a_500(deps: GatewayDeps, tenant: Tenant) -> None:
    """Called as the server would call it: part of the body, then the client's disconnect."""
    app = create_app(deps)
    key = await tenant.make_key()
    incoming: list[Message] = [
        {"type": "http.request", "body": b'{"title": "half', "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/printjobs",
        "raw_path": b"/v1/printjobs",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"gateway.test"),
            (b"authorization", f"Bearer {key}".encode()),
            (b"content-type", b"application/json"),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("gateway.test", 80),
    }
    await app(scope, receive, send)
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    assert start["status"] == 400
    assert json.loads(body)["error"]["code"] == "invalid_request"
