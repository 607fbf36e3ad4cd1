from __future__ import annotations

import httpx


async def test_health_and_metrics_need_no_key(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json()["status"] == "ok"
    ready = await client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    await client.get("/v1/whoami")
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200
    assert 'printcloud_http_request_seconds_count{method="GET",route="/v1/whoami",status="401"}' in metrics.text
    assert "x-request-id" in metrics.headers


async def test_openapi_document(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    assert document["info"] == {"title": "PrintCloud API", "version": "1.0.0"}
    assert "/v1/printjobs" in document["paths"]
    assert "HTTPValidationError" not in str(document)
    create = document["paths"]["/v1/printjobs"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PrintJobCreate"
    }
    assert "pass" in document["components"]["schemas"]["BasicAuthCredentials"]["properties"]
    assert set(document["components"]["securitySchemes"]) == {"bearer", "basic"}
