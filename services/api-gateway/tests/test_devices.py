from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.contracts.representations import computer as render_computer
from printcloud.contracts.representations import printer as render_printer

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

AGENT_GATEWAY_URL = "http://agents.example.test:8081"


@pytest.fixture
async def auth(tenant: Tenant) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key()}"}


async def test_computers_and_printers(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    computer = services.devices.add_computer(tenant.organization_id, "test")
    printer = services.devices.add_printer(computer)
    services.devices.add_computer(tenant.organization_id, "live")

    listed = (await client.get("/v1/computers", headers=auth)).json()
    assert listed == {"data": [render_computer(computer)], "hasMore": False, "nextCursor": computer.id}
    assert (await client.get(f"/v1/computers/{computer.id}", headers=auth)).json()["id"] == computer.id
    on_computer = (await client.get(f"/v1/computers/{computer.id}/printers", headers=auth)).json()
    assert on_computer["data"] == [render_printer(printer)]
    assert on_computer["data"][0]["capabilities"] == {"duplex": True}
    assert (await client.get("/v1/printers?limit=5", headers=auth)).json()["data"] == [render_printer(printer)]
    assert services.devices.requests[-1].page.limit == 5
    assert (await client.get(f"/v1/printers/{printer.id}", headers=auth)).json()["displayName"] == "Laser"

    other = "018f0000-0000-7000-8000-0000000000ff"
    assert_error(await client.get(f"/v1/computers/{other}/printers", headers=auth), 404, "not_found")
    assert_error(await client.get(f"/v1/printers/{other}", headers=auth), 404, "not_found")


async def test_paging_errors_on_device_lists(
    client: httpx.AsyncClient, auth: dict[str, str], assert_error: AssertError
) -> None:
    for query in ("limit=0", "limit=101", "limit=abc", "after=", "dir=up", "unknown=1"):
        assert_error(await client.get(f"/v1/computers?{query}", headers=auth), 400, "invalid_request")
        assert_error(await client.get(f"/v1/printers?{query}", headers=auth), 400, "invalid_request")


async def test_enrolment_in_the_keys_scope(
    client: httpx.AsyncClient, auth: dict[str, str], tenant: Tenant, services: Services, assert_error: AssertError
) -> None:
    response = await client.post("/v1/agent/enroll", headers=auth, json={"hostname": "shop-pc"})
    assert response.status_code == 201
    body = response.json()
    assert body == {
        "computerId": body["computerId"],
        "credential": body["credential"],
        "agentGatewayUrl": AGENT_GATEWAY_URL,
    }
    assert services.devices.credentials[body["credential"]] == body["computerId"], "the credential devices issued"
    sent = services.devices.requests[-1]
    assert (sent.scope.organization_id, sent.scope.mode) == (tenant.organization_id, "test")
    assert (sent.name, sent.hostname) == ("shop-pc", "shop-pc")

    named = await client.post("/v1/agent/enroll", headers=auth, json={"hostname": "h", "name": "Front desk"})
    assert named.status_code == 201 and services.devices.requests[-1].name == "Front desk"
    missing = await client.post("/v1/agent/enroll", headers=auth, json={"name": "x"})
    assert "`hostname`" in assert_error(missing, 400, "invalid_request")["message"]
