"""Organizations made for a suite through the operator CLI, as an operator would."""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2
from tests.e2e.client import api, cli, eventually


def create_org(stack: Stack, name: str, owner_email: str | None = None) -> str:
    """A new organization's id, made with the operator CLI; the owner defaults to owner@<name>.test."""
    owner = owner_email or f"owner@{name.lower()}.test"
    return str(cli(stack.database_url, "admin", "create-org", "--name", name, "--owner-email", owner)["id"])


def create_key(stack: Stack, org_id: str, mode: str, scopes: str) -> str:
    """A new API key of the organization, made with the operator CLI."""
    return str(
        cli(stack.database_url, "admin", "create-key", "--org", org_id, "--mode", mode, "--scopes", scopes)["key"]
    )


@dataclass
class OfficeTenant:
    scope: common_pb2.Scope
    key: str
    printer_id: str


def office_tenant(stack: Stack, name: str, owner_email: str) -> OfficeTenant:
    """A new organization with a test key of every scope, once its virtual office printer is online."""
    org_id = create_org(stack, name, owner_email)
    key = create_key(stack, org_id, "test", "read,print,admin")
    with api(stack.api_url, key) as client:

        def office_printer() -> str | None:
            printers = client.get("/v1/printers").json()["data"]
            online = [p["id"] for p in printers if p["name"] == "virtual-office" and p["state"] == "online"]
            return online[0] if online else None

        printer_id = eventually(office_printer, timeout=60, what="the virtual office printer online")
    return OfficeTenant(common_pb2.Scope(organization_id=org_id, mode="test"), key, printer_id)
