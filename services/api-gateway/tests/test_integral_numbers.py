"""JSON Schema calls `2.0` an integer, so the API does too (the OpenAPI document says `integer`);
a fraction, a string or a boolean is still refused."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

import httpx
import pytest

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

PRINTER = "018f0000-0000-7000-8000-0000000000a1"
PDF = base64.b64encode(b"%PDF-1.7 numbers").decode()


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}"}


def _job(**extra: object) -> dict[str, object]:
    return {"printerId": PRINTER, "title": "t", "contentType": "pdf_base64", "content": PDF, **extra}


async def test_integral_floats_are_the_integers_they_equal(
    client: httpx.AsyncClient, auth: dict[str, str], services: Services
) -> None:
    body = _job(qty=2.0, expireAfter=600.0, options={"copies": 3.0, "rotate": 90.0, "color": True})
    response = await client.post("/v1/printjobs", headers=auth, json=body)
    assert response.status_code == 201, response.text
    sent = services.jobs.requests[-1]
    assert (sent.qty, sent.expire_after) == (2, 600)
    # Forwarded as JSON integers: the services' option rules take no floats.
    assert sent.options_json == json.dumps({"copies": 3, "rotate": 90, "color": True})


@pytest.mark.parametrize("qty", [2.5, "2", True, None])
async def test_other_values_are_still_not_integers(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError, qty: object
) -> None:
    assert_error(await client.post("/v1/printjobs", headers=auth, json=_job(qty=qty)), 400, "invalid_request")
