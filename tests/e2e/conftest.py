"""The end-to-end fixtures: the whole stack started once from nothing, on free ports, with a
database of its own on the machine's PostgreSQL (or an embedded one) and its own broker."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, cli, eventually
from tests.e2e.stacks import LogFile, running_stack


@pytest.fixture(scope="session")
def service_logs(tmp_path_factory: pytest.TempPathFactory) -> LogFile:
    return LogFile(tmp_path_factory.mktemp("logs") / "services.log")


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory, service_logs: LogFile) -> Iterator[Stack]:
    # Debug level: the gRPC hops of a trace are logged at debug (see printcloud.core.rpc).
    with running_stack(tmp_path_factory.mktemp("stack"), service_logs, {"PRINTCLOUD_LOG_LEVEL": "DEBUG"}) as running:
        yield running


@dataclass
class Tenant:
    org_id: str
    test_key: str
    live_key: str
    read_key: str
    print_key: str


def _tenant(stack: Stack, name: str) -> Tenant:
    org = cli(stack.database_url, "admin", "create-org", "--name", name, "--owner-email", f"owner@{name.lower()}.test")
    keys = {
        label: cli(stack.database_url, "admin", "create-key", "--org", org["id"], "--mode", mode, "--scopes", scopes)[
            "key"
        ]
        for label, mode, scopes in (
            ("test", "test", "read,print,admin"),
            ("live", "live", "read,print,admin"),
            ("read", "test", "read"),
            ("print", "test", "read,print"),
        )
    }
    return Tenant(org["id"], keys["test"], keys["live"], keys["read"], keys["print"])


@pytest.fixture(scope="session")
def tenant(stack: Stack) -> Tenant:
    return _tenant(stack, "Acme")


@pytest.fixture(scope="session")
def other_tenant(stack: Stack) -> Tenant:
    return _tenant(stack, "Globex")


@pytest.fixture(scope="session")
def client(stack: Stack, tenant: Tenant) -> Iterator[httpx.Client]:
    with api(stack.api_url, tenant.test_key) as c:
        yield c


@pytest.fixture(scope="session")
def virtual_printers(client: httpx.Client) -> dict[str, dict]:
    """The test-mode virtual printers once the virtual agent has connected, by name."""

    def online() -> dict[str, dict] | None:
        printers = client.get("/v1/printers").json()["data"]
        if len(printers) == 4 and all(p["state"] == "online" for p in printers):
            return {p["name"]: p for p in printers}
        return None

    return eventually(online, timeout=60, what="four online virtual printers")
