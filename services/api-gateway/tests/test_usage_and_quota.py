"""The plan's quota handed to the jobs service, `quota_exceeded` with `upgrade_url`, `GET /v1/usage`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.api_gateway.domain.plans import DEFAULT_PLANS, DEFAULT_UPGRADE_URL, PlanCatalog
from printcloud.contracts.errors import ApiError

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

PRINTER = "018f0000-0000-7000-8000-0000000000a1"
BODY = {"printerId": PRINTER, "title": "Invoice", "contentType": "pdf_base64", "content": "JVBERi0="}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_live_jobs_carry_the_plans_quota_and_test_jobs_none(
    client: httpx.AsyncClient, tenant: Tenant, services: Services
) -> None:
    live, test = await tenant.make_key(mode="live"), await tenant.make_key(mode="test")
    assert (await client.post("/v1/printjobs", json=BODY, headers=bearer(live))).status_code == 201
    assert services.jobs.requests[-1].live_print_quota == DEFAULT_PLANS["free"]
    assert (await client.post("/v1/printjobs", json=BODY, headers=bearer(test))).status_code == 201
    assert not services.jobs.requests[-1].HasField("live_print_quota")


async def test_quota_exceeded_is_402_with_the_upgrade_url(
    client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError, services: Services
) -> None:
    live = await tenant.make_key(mode="live")
    services.jobs.recorder.fail_next("CreateJob", ApiError("quota_exceeded", "All live prints of this month are used."))
    answer = await client.post("/v1/printjobs", json=BODY, headers=bearer(live))
    error = assert_error(answer, 402, "quota_exceeded")
    assert error["upgrade_url"] == DEFAULT_UPGRADE_URL
    assert "retry-after" not in answer.headers


async def test_usage_report(client: httpx.AsyncClient, tenant: Tenant, services: Services) -> None:
    answer = await client.get("/v1/usage", headers=bearer(await tenant.make_key(("read",), mode="live")))
    assert answer.status_code == 200
    assert services.jobs.requests[-1].scope.organization_id == tenant.organization_id
    assert answer.json() == {
        "plan": "free",
        "period": {"start": "2030-01-01T00:00:00.000Z", "end": "2030-02-01T00:00:00.000Z"},
        "livePrints": {"used": 7, "quota": DEFAULT_PLANS["free"], "remaining": DEFAULT_PLANS["free"] - 7},
        "testJobs": {
            "today": 3,
            "dailyCap": 500,
            "remaining": 497,
            "period": {"start": "2030-01-15T00:00:00.000Z", "end": "2030-01-16T00:00:00.000Z"},
        },
        "upgradeUrl": DEFAULT_UPGRADE_URL,
    }


async def test_usage_needs_the_read_scope(client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError) -> None:
    key = await tenant.make_key(("print",))
    assert_error(await client.get("/v1/usage", headers=bearer(key)), 403, "insufficient_scope")
    assert_error(await client.get("/v1/usage?x=1", headers=bearer(await tenant.make_key())), 400, "invalid_request")


async def test_usage_is_in_the_openapi_document(client: httpx.AsyncClient) -> None:
    document = (await client.get("/v1/openapi.json")).json()
    response = document["paths"]["/v1/usage"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    usage = document["components"]["schemas"][response["$ref"].rsplit("/", 1)[1]]
    assert set(usage["required"]) == {"plan", "period", "livePrints", "testJobs", "upgradeUrl"}


def test_the_plan_catalog_needs_the_default_plan_and_knows_its_names() -> None:
    catalog = PlanCatalog({"free": 10, "gold": 1000})
    assert (catalog.quota("gold"), catalog.quota("retired"), catalog.checked("gold")) == (1000, 10, "gold")
    with pytest.raises(ValueError, match="no plan"):
        catalog.checked("retired")
    with pytest.raises(ValueError, match="must include 'free'"):
        PlanCatalog({"gold": 1000})
    with pytest.raises(ValueError, match="quota of 0 or more"):
        PlanCatalog({"free": -1})
