from __future__ import annotations

import httpx
from prometheus_client import generate_latest

from printcloud.core import release
from printcloud.core.telemetry.ops import ops_app


async def test_health_needs_no_key_and_names_the_release(client: httpx.AsyncClient) -> None:
    health = (await client.get("/healthz")).json()
    assert (health["status"], health["version"]) == ("ok", release.version())
    ready = await client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    assert "x-request-id" in ready.headers


async def test_metrics_are_not_on_the_public_port(client: httpx.AsyncClient) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert response.json()["error"]["request_id"] == response.headers["x-request-id"]
    transport = httpx.ASGITransport(app=ops_app("api-gateway"))
    async with httpx.AsyncClient(transport=transport, base_url="http://ops") as ops:
        assert (await ops.get("/metrics")).status_code == 200


async def test_requests_are_counted_with_bounded_labels(client: httpx.AsyncClient) -> None:
    await client.get("/v1/whoami")
    await client.get("/v1/printjobs/00000000-0000-0000-0000-000000000000")
    await client.request("BREW", "/v1/coffee-pot-3f1c")
    exposed = generate_latest().decode()
    assert 'printcloud_http_request_duration_seconds_count{method="GET",route="/v1/whoami",status="401"}' in exposed
    # An id is never a label value, nor a made-up method or path.
    assert 'route="/v1/printjobs/{id}"' in exposed
    assert "00000000-0000-0000-0000-000000000000" not in exposed
    assert "BREW" not in exposed and "coffee-pot-3f1c" not in exposed
    assert 'method="other",route="unmatched"' in exposed


async def test_openapi_document(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    assert (document["info"]["title"], document["info"]["version"]) == ("PrintCloud API", "1.0.0")
    assert document["openapi"] == "3.1.0"
    assert "/v1/printjobs" in document["paths"]
    assert "HTTPValidationError" not in str(document)
    create = document["paths"]["/v1/printjobs"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PrintJobCreate"
    }
    assert "pass" in document["components"]["schemas"]["BasicAuthCredentials"]["properties"]
    assert set(document["components"]["securitySchemes"]) == {"bearer", "basic"}
