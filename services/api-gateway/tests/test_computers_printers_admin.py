"""PATCH/DELETE of computers and PATCH of printers at the gateway: scopes, body checks, and what
reaches the devices service (a fake here; the rules themselves are devices' and tested there
and end to end)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.core import rpc
from printcloud.core.errors import ApiError, not_found
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc
from tests.support.grpc_server import serving

if TYPE_CHECKING:
    from conftest import AssertError, Tenant

COMPUTER_ID = "018f0000-0000-7000-8000-0000000000c1"
PRINTER_ID = "018f0000-0000-7000-8000-0000000000d1"
VIRTUAL_ID = "018f0000-0000-7000-8000-0000000000c2"
NOW = "2030-01-01T00:00:00.000Z"


@dataclass
class AdminDevices(devices_pb2_grpc.DevicesServicer):
    requests: list[Any] = field(default_factory=list)

    async def UpdateComputer(
        self, request: devices_pb2.UpdateComputerRequest, context: rpc.ServicerContext
    ) -> devices_pb2.Computer:
        self.requests.append(request)
        if request.id != COMPUTER_ID:
            raise not_found("computer")
        state = "disabled" if request.HasField("enabled") and not request.enabled else "online"
        return devices_pb2.Computer(
            id=request.id, organization_id=request.scope.organization_id, name=request.name or "Desk",
            mode=request.scope.mode, state=state, created_at=NOW,
        )  # fmt: skip

    async def DeleteComputer(
        self, request: devices_pb2.DeleteComputerRequest, context: rpc.ServicerContext
    ) -> common_pb2.Empty:
        self.requests.append(request)
        if request.id == VIRTUAL_ID:
            raise ApiError("conflict", "The test-mode virtual computer cannot be deleted.")
        if request.id != COMPUTER_ID:
            raise not_found("computer")
        return common_pb2.Empty()

    async def UpdatePrinter(
        self, request: devices_pb2.UpdatePrinterRequest, context: rpc.ServicerContext
    ) -> devices_pb2.Printer:
        self.requests.append(request)
        if request.id != PRINTER_ID:
            raise not_found("printer")
        return devices_pb2.Printer(
            id=request.id, organization_id=request.scope.organization_id, computer_id=COMPUTER_ID, name="laser",
            display_name=request.display_name or "Laser", enabled=True, state="online", capabilities_json="{}",
            default_options_json=request.default_options_json or "{}", custom_papers=request.custom_papers.items,
            created_at=NOW, updated_at=NOW, mode=request.scope.mode,
        )  # fmt: skip


# The fake, to read what reached it, and a stub that calls it over gRPC.
Served = tuple[AdminDevices, devices_pb2_grpc.DevicesStub]


@pytest.fixture(scope="module")
async def admin_devices() -> AsyncIterator[Served]:
    fake = AdminDevices()
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, fake) as channel:
        yield fake, devices_pb2_grpc.DevicesStub(channel)


@pytest.fixture
async def http(deps: GatewayDeps, admin_devices: Served) -> AsyncIterator[httpx.AsyncClient]:
    app_deps = replace(deps, devices=admin_devices[1], agent_gateway_public_url="http://a.test")
    transport = httpx.ASGITransport(app=create_app(app_deps))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
        yield client


async def _auth(
    tenant: Tenant, scopes: tuple[str, ...] = ("read", "print", "admin"), mode: str = "test"
) -> dict[str, str]:
    return {"Authorization": f"Bearer {await tenant.make_key(scopes, mode)}"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("PATCH", f"/v1/computers/{COMPUTER_ID}", {"name": "x"}),
        ("DELETE", f"/v1/computers/{COMPUTER_ID}", None),
        ("PATCH", f"/v1/printers/{PRINTER_ID}", {"displayName": "x"}),
    ],
)
async def test_admin_scope_is_required_before_the_body_is_read(
    http: httpx.AsyncClient,
    tenant: Tenant,
    admin_devices: Served,
    assert_error: AssertError,
    method: str,
    path: str,
    body: dict[str, str] | None,
) -> None:
    sent = len(admin_devices[0].requests)
    headers = await _auth(tenant, ("read", "print"))
    response = await http.request(method, path, headers=headers, content=b"not json")
    assert_error(response, 403, "insufficient_scope")
    assert_error(await http.request(method, path, content=json.dumps(body or {})), 401, "unauthorized")
    assert len(admin_devices[0].requests) == sent


async def test_patch_computer_sends_name_and_enabled_in_the_keys_scope(
    http: httpx.AsyncClient,
    tenant: Tenant,
    admin_devices: Served,
    assert_error: AssertError,
) -> None:
    headers = await _auth(tenant)
    response = await http.patch(
        f"/v1/computers/{COMPUTER_ID}", headers=headers, json={"name": "Desk", "enabled": False}
    )
    assert response.status_code == 200 and response.json()["state"] == "disabled"
    sent = admin_devices[0].requests[-1]
    assert (sent.scope.organization_id, sent.scope.mode) == (tenant.organization_id, "test")
    assert (sent.name, sent.enabled) == ("Desk", False)
    renamed_only = await http.patch(f"/v1/computers/{COMPUTER_ID}", headers=headers, json={"name": "Desk"})
    assert renamed_only.status_code == 200 and not admin_devices[0].requests[-1].HasField("enabled")
    for body in ({"name": ""}, {"name": "x" * 256}, {"name": None}, {"enabled": 1}, {"disabled": True}):
        assert_error(
            await http.patch(f"/v1/computers/{COMPUTER_ID}", headers=headers, json=body), 400, "invalid_request"
        )
    assert_error(await http.patch("/v1/computers/nope", headers=headers, json={"name": "x"}), 404, "not_found")
    other = "018f0000-0000-7000-8000-0000000000ee"
    assert_error(await http.patch(f"/v1/computers/{other}", headers=headers, json={"name": "x"}), 404, "not_found")


async def test_delete_computer_answers_204_and_passes_service_errors_through(
    http: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    headers = await _auth(tenant)
    deleted = await http.delete(f"/v1/computers/{COMPUTER_ID}", headers=headers)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert_error(await http.delete(f"/v1/computers/{VIRTUAL_ID}", headers=headers), 409, "conflict")
    assert_error(await http.delete("/v1/computers/nope", headers=headers), 404, "not_found")
    assert_error(await http.delete(f"/v1/computers/{COMPUTER_ID}?force=1", headers=headers), 400, "invalid_request")


async def test_patch_printer_maps_every_field(
    http: httpx.AsyncClient,
    tenant: Tenant,
    admin_devices: Served,
    assert_error: AssertError,
) -> None:
    headers = await _auth(tenant)
    body = {
        "defaultOptions": {"copies": 2},
        "customPapers": [{"name": "Label", "width": 1016, "height": 1524}],
        "displayName": "Front",
        "enabled": False,
        "remarks": "upstairs",
    }
    response = await http.patch(f"/v1/printers/{PRINTER_ID}", headers=headers, json=body)
    assert response.status_code == 200, response.text
    assert response.json()["customPapers"] == body["customPapers"]
    sent = admin_devices[0].requests[-1]
    assert json.loads(sent.default_options_json) == {"copies": 2}
    assert [(p.name, p.width, p.height) for p in sent.custom_papers.items] == [("Label", 1016, 1524)]
    assert (sent.display_name, sent.enabled, sent.remarks, sent.clear_remarks) == ("Front", False, "upstairs", False)

    await http.patch(f"/v1/printers/{PRINTER_ID}", headers=headers, json={"remarks": None, "customPapers": []})
    sent = admin_devices[0].requests[-1]
    assert sent.clear_remarks and not sent.HasField("remarks")
    assert sent.HasField("custom_papers") and list(sent.custom_papers.items) == []
    assert not sent.HasField("display_name") and not sent.HasField("default_options_json")

    bad: Mapping[str, object]
    for bad in (
        {"customPapers": [{"name": "L", "width": "1", "height": 2}]},
        {"customPapers": [{"name": "L", "width": 1}]},
        {"defaultOptions": ["copies"]},
        {"enabled": "false"},
        {"displayName": None},
        {"capabilities": {}},
    ):
        assert_error(await http.patch(f"/v1/printers/{PRINTER_ID}", headers=headers, json=bad), 400, "invalid_request")
    live = await _auth(tenant, mode="live")
    other = "018f0000-0000-7000-8000-0000000000ee"
    assert_error(await http.patch(f"/v1/printers/{other}", headers=live, json={"enabled": True}), 404, "not_found")
