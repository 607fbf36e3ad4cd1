"""Authentication, scopes, request ids and the error envelope on every kind of bad request."""

from __future__ import annotations

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, assert_error
from tests.e2e.conftest import Tenant


def test_missing_key_is_unauthorized(stack: Stack) -> None:
    with api(stack.api_url, None) as anonymous:
        assert_error(anonymous.get("/v1/whoami"), 401, "unauthorized")


def test_unknown_key_is_unauthorized(stack: Stack) -> None:
    with api(stack.api_url, "svc_test_not-a-real-key") as stranger:
        assert_error(stranger.get("/v1/printers"), 401, "unauthorized")


def test_basic_auth_with_key_as_username_is_accepted(stack: Stack, tenant: Tenant) -> None:
    with api(stack.api_url, tenant.test_key, basic=True) as basic:
        response = basic.get("/v1/whoami")
    assert response.status_code == 200, response.text


def test_whoami_describes_the_key(client: httpx.Client, tenant: Tenant) -> None:
    body = client.get("/v1/whoami").json()

    assert body["mode"] == "test"
    assert body["organization"] == {"id": tenant.org_id, "name": "Acme"}
    assert isinstance(body["apiKeyId"], str) and body["apiKeyId"]
    assert isinstance(body["plan"], str)


def test_key_without_print_scope_cannot_print(stack: Stack, tenant: Tenant, virtual_printers: dict) -> None:
    with api(stack.api_url, tenant.read_key) as reader:
        response = reader.post(
            "/v1/printjobs",
            json={
                "printerId": virtual_printers["virtual-office"]["id"],
                "title": "x",
                "contentType": "pdf_base64",
                "content": PDF_BASE64,
            },
        )
    assert_error(response, 403, "insufficient_scope")


def test_every_response_carries_a_request_id(client: httpx.Client) -> None:
    ok = client.get("/v1/whoami")
    assert ok.headers["x-request-id"]
    assert client.get("/v1/whoami").headers["x-request-id"] != ok.headers["x-request-id"]


def test_unknown_route_is_not_found_in_the_envelope(client: httpx.Client) -> None:
    assert_error(client.get("/v1/no-such-thing"), 404, "not_found")


def test_wrong_method_uses_the_envelope(client: httpx.Client) -> None:
    response = client.delete("/v1/whoami")
    assert response.status_code == 405
    assert response.json()["error"]["request_id"] == response.headers["x-request-id"]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"{not json", "malformed JSON"),
        (b"[]", "not an object"),
        (b'{"title": "x", "contentType": "pdf_base64", "content": "JVBERi0="}', "missing printerId"),
        (
            b'{"printerId": "00000000-0000-7000-8000-000000000000", "title": "x", "contentType": "pdf_base64",'
            b' "content": "JVBERi0=", "colour": true}',
            "unknown field",
        ),
        (
            b'{"printerId": "00000000-0000-7000-8000-000000000000", "title": "x", "contentType": "pdf_base64",'
            b' "content": "JVBERi0=", "qty": "2"}',
            "qty as a string",
        ),
        (
            b'{"printerId": "00000000-0000-7000-8000-000000000000", "title": "", "contentType": "pdf_base64",'
            b' "content": "JVBERi0="}',
            "empty title",
        ),
    ],
)
def test_malformed_bodies_are_invalid_requests(client: httpx.Client, body: bytes, why: str) -> None:
    response = client.post("/v1/printjobs", content=body, headers={"Content-Type": "application/json"})
    assert_error(response, 400, "invalid_request")


def test_another_organizations_job_is_not_found(
    stack: Stack, client: httpx.Client, other_tenant: Tenant, virtual_printers: dict
) -> None:
    created = client.post(
        "/v1/printjobs",
        json={
            "printerId": virtual_printers["virtual-photo"]["id"],
            "title": "private",
            "contentType": "pdf_base64",
            "content": PDF_BASE64,
        },
    ).json()
    with api(stack.api_url, other_tenant.test_key) as other:
        assert_error(other.get(f"/v1/printjobs/{created['id']}"), 404, "not_found")
        assert_error(other.get(f"/v1/printers/{virtual_printers['virtual-photo']['id']}"), 404, "not_found")
    with api(stack.api_url, other_tenant.live_key) as live:
        assert_error(live.get(f"/v1/printjobs/{created['id']}"), 404, "not_found")
