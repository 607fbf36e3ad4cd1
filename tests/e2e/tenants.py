"""Organizations made for a suite through the operator CLI, as an operator would."""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2
from tests.e2e.client import api, cli, eventually


@dataclass
class OfficeTenant:
    scope: common_pb2.Scope
    key: str
    printer_id: str


def office_tenant(stack: Stack, name: str, owner_email: str) -> OfficeTenant:
    """A new organization with a test key of every scope, once its virtual office printer is online."""
    url = stack.database_url
    org = cli(url, "admin", "create-org", "--name", name, "--owner-email", owner_email)
    key = cli(url, "admin", "create-key", "--org", org["id"], "--mode", "test", "--scopes", "read,print,admin")["key"]
    with api(stack.api_url, key) as client:

        def office_printer() -> str | None:
            printers = client.get("/v1/printers").json()["data"]
            online = [p["id"] for p in printers if p["name"] == "virtual-office" and p["state"] == "online"]
            return online[0] if online else None

        printer_id = eventually(office_printer, timeout=60, what="the virtual office printer online")
    return OfficeTenant(common_pb2.Scope(organization_id=org["id"], mode="test"), key, printer_id)
