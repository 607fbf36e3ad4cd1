"""The limit through the HTTP app: who is charged, the 429 envelope and the rate headers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app

if TYPE_CHECKING:
    from conftest import AssertError, Tenant

LIMIT = 3


@pytest.fixture
async def http(deps: GatewayDeps) -> AsyncIterator[httpx.AsyncClient]:
    # A clock that stands still: every request falls in one window, whatever the machine's speed.
    limiter = RateLimiter(LIMIT, clock=lambda: 1000.0)
    transport = httpx.ASGITransport(app=create_app(replace(deps, rate_limiter=limiter)))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
        yield client


async def test_a_key_past_its_limit_is_refused_with_retry_after(
    http: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    headers = {"Authorization": f"Bearer {await tenant.make_key(('read',))}"}
    answers = [await http.get("/v1/whoami", headers=headers) for _ in range(LIMIT + 1)]
    assert [r.status_code for r in answers[:LIMIT]] == [200] * LIMIT
    assert [r.headers["ratelimit-remaining"] for r in answers[:LIMIT]] == ["2", "1", "0"]
    assert all(r.headers["ratelimit-limit"] == str(LIMIT) for r in answers)
    assert all("retry-after" not in r.headers for r in answers[:LIMIT])
    refused = answers[LIMIT]
    assert_error(refused, 429, "rate_limited")
    assert refused.headers["retry-after"] == "1"
    assert refused.headers["ratelimit-remaining"] == "0"
    assert refused.headers["ratelimit-reset"] == "1"
    # Another key of the same organization has a limit of its own.
    other = {"Authorization": f"Bearer {await tenant.make_key(('read',))}"}
    assert (await http.get("/v1/whoami", headers=other)).status_code == 200


async def test_bad_keys_are_limited_per_client_address(
    http: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    guesses = [f"svc_test_{'x' * 40}{n}" for n in range(LIMIT)]
    for guess in guesses:
        answer = await http.get("/v1/whoami", headers={"Authorization": f"Bearer {guess}"})
        assert_error(answer, 401, "unauthorized")
        assert "ratelimit-remaining" in answer.headers
    assert_error(await http.get("/v1/whoami", headers={"Authorization": "Bearer another"}), 429, "rate_limited")
    assert_error(await http.get("/v1/whoami"), 429, "rate_limited")
    assert_error(await http.get("/v1/openapi.json"), 429, "rate_limited")
    # A good key from the same address is charged to the key, not the address.
    good = {"Authorization": f"Bearer {await tenant.make_key(('read',))}"}
    assert (await http.get("/v1/whoami", headers=good)).status_code == 200


async def test_requests_without_a_key_are_charged_to_the_address_once(
    http: httpx.AsyncClient, assert_error: AssertError
) -> None:
    answers = [await http.get("/v1/whoami") for _ in range(LIMIT)]
    assert [r.headers["ratelimit-remaining"] for r in answers] == ["2", "1", "0"]
    assert_error(await http.get("/v1/openapi.json"), 429, "rate_limited")


async def test_ops_endpoints_are_not_limited(http: httpx.AsyncClient) -> None:
    for _ in range(LIMIT + 2):
        answer = await http.get("/healthz")
        assert answer.status_code == 200 and "ratelimit-limit" not in answer.headers
