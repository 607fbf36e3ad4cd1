"""PATCH/DELETE of computers and PATCH of printers at the gateway: scopes, body checks, and what
reaches the devices service (the shared fake here, held to the real service by its contract tests;
the rules themselves are devices' and tested there and end to end)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.v1 import devices_pb2

if TYPE_CHECKING:
    from conftest import AssertError, Services, Tenant

# Any ids: these requests are refused before devices is asked.
COMPUTER_ID = "018f0000-0000-7000-8000-0000000000c1"
PRINTER_ID = "018f0000-0000-7000-8000-0000000000d1"


@dataclass(frozen=True)
class Desk:
    """A computer with one printer, and the virtual computer, in the tenant's test mode."""

    computer: devices_pb2.Computer
    printer: devices_pb2.Printer
    virtual: devices_pb2.Computer


@pytest.fixture
def desk(tenant: Tenant, services: Services) -> Desk:
    computer = services.devices.add_computer(tenant.organization_id, "test", name="Desk")
    virtual = services.devices.add_computer(tenant.organization_id, "test", is_virtual=True)
    return Desk(computer, services.devices.add_printer(computer), virtual)


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
    client: httpx.AsyncClient,
    tenant: Tenant,
    services: Services,
    assert_error: AssertError,
    method: str,
    path: str,
    body: dict[str, str] | None,
) -> None:
    sent = len(services.devices.requests)
    headers = await _auth(tenant, ("read", "print"))
    response = await client.request(method, path, headers=headers, content=b"not json")
    assert_error(response, 403, "insufficient_scope")
    assert_error(await client.request(method, path, content=json.dumps(body or {})), 401, "unauthorized")
    assert len(services.devices.requests) == sent


async def test_patch_computer_sends_name_and_enabled_in_the_keys_scope(
    client: httpx.AsyncClient,
    tenant: Tenant,
    desk: Desk,
    services: Services,
    assert_error: AssertError,
) -> None:
    headers = await _auth(tenant)
    response = await client.patch(
        f"/v1/computers/{desk.computer.id}", headers=headers, json={"name": "Desk", "enabled": False}
    )
    assert response.status_code == 200 and response.json()["state"] == "disabled"
    sent = services.devices.requests[-1]
    assert (sent.scope.organization_id, sent.scope.mode) == (tenant.organization_id, "test")
    assert (sent.name, sent.enabled) == ("Desk", False)
    renamed_only = await client.patch(f"/v1/computers/{desk.computer.id}", headers=headers, json={"name": "Desk"})
    assert renamed_only.status_code == 200 and not services.devices.requests[-1].HasField("enabled")
    for body in ({"name": ""}, {"name": "x" * 256}, {"name": None}, {"enabled": 1}, {"disabled": True}):
        assert_error(
            await client.patch(f"/v1/computers/{desk.computer.id}", headers=headers, json=body), 400, "invalid_request"
        )
    assert_error(await client.patch("/v1/computers/nope", headers=headers, json={"name": "x"}), 404, "not_found")
    other = "018f0000-0000-7000-8000-0000000000ee"
    assert_error(await client.patch(f"/v1/computers/{other}", headers=headers, json={"name": "x"}), 404, "not_found")


async def test_delete_computer_answers_204_and_passes_service_errors_through(
    client: httpx.AsyncClient, tenant: Tenant, desk: Desk, services: Services, assert_error: AssertError
) -> None:
    headers = await _auth(tenant)
    forgotten = len(services.jobs.recorder.named("ForgetPrinters"))
    deleted = await client.delete(f"/v1/computers/{desk.computer.id}", headers=headers)
    assert (deleted.status_code, deleted.content) == (204, b"")
    (forget,) = services.jobs.recorder.named("ForgetPrinters")[forgotten:]
    assert (forget.scope.organization_id, forget.scope.mode) == (tenant.organization_id, "test")
    assert_error(await client.delete(f"/v1/computers/{desk.virtual.id}", headers=headers), 409, "conflict")
    assert_error(await client.delete("/v1/computers/nope", headers=headers), 404, "not_found")
    assert_error(
        await client.delete(f"/v1/computers/{desk.computer.id}?force=1", headers=headers), 400, "invalid_request"
    )


async def test_patch_printer_maps_every_field(
    client: httpx.AsyncClient,
    tenant: Tenant,
    desk: Desk,
    services: Services,
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
    forgotten = len(services.jobs.recorder.named("ForgetPrinters"))
    response = await client.patch(f"/v1/printers/{desk.printer.id}", headers=headers, json=body)
    assert response.status_code == 200, response.text
    assert response.json()["customPapers"] == body["customPapers"]
    (forget,) = services.jobs.recorder.named("ForgetPrinters")[forgotten:]
    assert (forget.scope.organization_id, forget.scope.mode) == (tenant.organization_id, "test"), (
        "jobs forgets the key's printers before the answer: the next create sees the change"
    )
    sent = services.devices.requests[-1]
    assert json.loads(sent.default_options_json) == {"copies": 2}
    assert [(p.name, p.width, p.height) for p in sent.custom_papers.items] == [("Label", 1016, 1524)]
    assert (sent.display_name, sent.enabled, sent.remarks, sent.clear_remarks) == ("Front", False, "upstairs", False)

    await client.patch(f"/v1/printers/{desk.printer.id}", headers=headers, json={"remarks": None, "customPapers": []})
    sent = services.devices.requests[-1]
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
        assert_error(
            await client.patch(f"/v1/printers/{desk.printer.id}", headers=headers, json=bad), 400, "invalid_request"
        )
    live = await _auth(tenant, mode="live")
    elsewhere = await client.patch(f"/v1/printers/{desk.printer.id}", headers=live, json={"enabled": True})
    assert_error(elsewhere, 404, "not_found")  # the printer is the test mode's
