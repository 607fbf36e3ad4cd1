"""The error envelope and X-Request-Id on every kind of failure, including the framework's own."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

GENERATED_ID = re.compile(r"^req_[0-9a-f]{32}$")
NEW_DOCUMENT = {"printerId": "p", "title": "t", "contentType": "pdf_uri", "content": "u"}


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}"}


async def test_unknown_route_is_404_envelope(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    assert_error(await client.get("/v1/nothing-here", headers=auth), 404, "not_found")
    assert_error(await client.get("/elsewhere"), 404, "not_found")


async def test_wrong_method_is_405_with_every_allowed_method(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    response = await client.put("/v1/printjobs", headers=auth)
    assert_error(response, 405, "method_not_allowed")
    assert {"GET", "POST"} <= {m.strip() for m in response.headers["allow"].split(",")}


async def test_client_request_id_is_kept_when_safe(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    response = await client.get("/v1/whoami", headers={**auth, "X-Request-Id": "client-123.A_b"})
    assert response.headers["x-request-id"] == "client-123.A_b"
    unsafe = await client.get("/v1/nothing", headers={"X-Request-Id": "has space"})
    assert GENERATED_ID.match(assert_error(unsafe, 404, "not_found")["request_id"])
    too_long = await client.get("/v1/whoami", headers={**auth, "X-Request-Id": "a" * 129})
    assert GENERATED_ID.match(too_long.headers["x-request-id"])
    generated = await client.get("/v1/whoami", headers=auth)
    assert GENERATED_ID.match(generated.headers["x-request-id"])


async def test_request_id_and_trace_context_reach_the_services(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    headers = {**auth, "X-Request-Id": "trace-me", "traceparent": f"00-{trace_id}-00f067aa0ba902b7-01"}
    await client.get("/v1/printjobs/018f0000-0000-7000-8000-000000000009", headers=headers)
    metadata = services.jobs.metadata[-1]
    assert metadata["x-request-id"] == "trace-me"
    assert metadata["traceparent"].split("-")[1] == trace_id


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": "t", "contentType": "pdf_uri", "content": "http://x/a.pdf"}, "printerId"),
        ({**NEW_DOCUMENT, "colour": True}, "colour"),
        ({**NEW_DOCUMENT, "qty": "2"}, "qty"),
        ({**NEW_DOCUMENT, "qty": True}, "qty"),
        ({**NEW_DOCUMENT, "qty": 101}, "qty"),
        ({**NEW_DOCUMENT, "qty": 0}, "qty"),
        ({**NEW_DOCUMENT, "qty": None}, "qty"),
        ({**NEW_DOCUMENT, "expireAfter": 59}, "expireAfter"),
        ({**NEW_DOCUMENT, "expireAfter": 604801}, "expireAfter"),
        ({"printerId": "p", "title": "", "contentType": "pdf_uri", "content": "u"}, "title"),
        ({"printerId": "p", "title": "x" * 256, "contentType": "pdf_uri", "content": "u"}, "title"),
        ({"printerId": "p", "title": "t", "contentType": "pdf", "content": "u"}, "contentType"),
        ({"printerId": "p", "title": "t", "contentType": "pdf_uri", "content": ""}, "content"),
        ({**NEW_DOCUMENT, "options": []}, "options"),
        ({"printerId": 7, "title": "t", "contentType": "pdf_uri", "content": "u"}, "printerId"),
        ({"printerId": "p", "title": "t", "contentType": "pdf_uri"}, "content"),
        ({"printerId": "p", "title": "t", "reprintOf": "j", "content": "u"}, "content"),
        ({"printerId": "p", "title": "t", "reprintOf": "j", "options": {}}, "options"),
        ({"printerId": "p", "title": "t", "reprintOf": "j", "qty": 0}, "qty"),
        (
            {"printerId": "p", "title": "t", "contentType": "pdf_uri", "content": "u",
             "authentication": {"type": "BasicAuth", "credentials": {"user": "u", "pass": 1}}},
            "authentication.credentials.pass",
        ),
    ],
)  # fmt: skip
async def test_invalid_print_job_bodies_name_the_field(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, body: dict[str, object], field: str
) -> None:
    error = assert_error(await client.post("/v1/printjobs", headers=auth, json=body), 400, "invalid_request")
    assert f"`{field}`" in error["message"]


async def test_bad_json_and_wrong_content_type(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    json_headers = {**auth, "Content-Type": "application/json"}
    for raw in (b"{", b"[]", b'{"qty": NaN}', b"\xff\xfe"):
        assert_error(await client.post("/v1/printjobs", headers=json_headers, content=raw), 400, "invalid_request")
    form = await client.post("/v1/printjobs", headers=auth, data={"title": "t"})
    assert "Content-Type" in assert_error(form, 400, "invalid_request")["message"]
    assert_error(await client.post("/v1/printjobs", headers=auth), 400, "invalid_request")


async def test_non_uuid_path_ids_are_404_without_asking_a_service(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, services: Services
) -> None:
    before = len(services.jobs.requests) + len(services.devices.requests)
    for path in ("/v1/printjobs/42", "/v1/printers/abc", "/v1/computers/x/printers", "/v1/printjobs/1/events"):
        assert_error(await client.get(path, headers=auth), 404, "not_found")
    assert_error(await client.post("/v1/printjobs/nope/cancel", headers=auth), 404, "not_found")
    assert len(services.jobs.requests) + len(services.devices.requests) == before


async def test_unexpected_exception_is_500_envelope_and_logged(
    deps: GatewayDeps, tenant: Tenant, assert_error: AssertError, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(deps)

    async def explode() -> None:
        raise RuntimeError("boom")

    app.add_api_route("/v1/explode", explode)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as http:
        with caplog.at_level(logging.ERROR):
            response = await http.get("/v1/explode", headers={"X-Request-Id": "boom-1"})
    assert assert_error(response, 500, "internal_error")["request_id"] == "boom-1"
    record = next(r for r in caplog.records if r.getMessage() == "unhandled error")
    assert record.exc_info is not None


async def test_service_crash_is_500_envelope(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, services: Services
) -> None:
    services.jobs.recorder.fail_next("CreateJob", RuntimeError("fake jobs service crashed"))
    body = {
        "printerId": "018f0000-0000-7000-8000-000000000001",
        "title": "Crash",
        "contentType": "raw_base64",
        "content": "QQ==",
    }
    assert_error(await client.post("/v1/printjobs", headers=auth, json=body), 500, "internal_error")


async def test_no_error_uses_the_detail_shape(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    responses = [
        await client.get("/v1/printers?limit=abc", headers=auth),
        await client.get("/v1/printers?bogus=1", headers=auth),
        await client.delete("/v1/whoami", headers=auth),
        await client.get("/v1/whoami"),
    ]
    for response in responses:
        assert "detail" not in response.json()
        assert response.json()["error"]["request_id"] == response.headers["x-request-id"]
