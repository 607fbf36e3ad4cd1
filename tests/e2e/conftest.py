"""The end-to-end fixtures: the whole stack started once from nothing, on free ports, with a
database of its own on the machine's PostgreSQL (or an embedded one) and its own broker."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually
from tests.e2e.stacks import LogFile, running_stack
from tests.e2e.tenants import create_key, create_org
from tests.support.otlp_receiver import OtlpReceiver


@pytest.fixture(scope="session")
def service_logs(tmp_path_factory: pytest.TempPathFactory) -> LogFile:
    return LogFile(tmp_path_factory.mktemp("logs") / "services.log")


@pytest.fixture(scope="session")
def otlp_receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as receiver:
        yield receiver


@pytest.fixture(scope="session")
def stack(
    tmp_path_factory: pytest.TempPathFactory, service_logs: LogFile, otlp_receiver: OtlpReceiver
) -> Iterator[Stack]:
    env = {
        # Debug level: the gRPC hops of a trace are logged at debug (see printcloud.core.rpc.server).
        "PRINTCLOUD_LOG_LEVEL": "DEBUG",
        # Standard OpenTelemetry variables, not settings: the stack passes them to every service as
        # they are. Spans leave within 0.2 s and metrics every 5 s, so tests do not wait long.
        "OTEL_EXPORTER_OTLP_ENDPOINT": otlp_receiver.endpoint,
        "OTEL_EXPORTER_OTLP_HEADERS": "x-printcloud-test=e2e",
        "OTEL_BSP_SCHEDULE_DELAY": "200",
        "OTEL_METRIC_EXPORT_INTERVAL": "5000",
    }
    with running_stack(tmp_path_factory.mktemp("stack"), service_logs, env) as running:
        yield running


@dataclass
class Tenant:
    org_id: str
    test_key: str
    live_key: str
    read_key: str
    print_key: str


def _tenant(stack: Stack, name: str) -> Tenant:
    org_id = create_org(stack, name)
    return Tenant(
        org_id,
        test_key=create_key(stack, org_id, "test", "read,print,admin"),
        live_key=create_key(stack, org_id, "live", "read,print,admin"),
        read_key=create_key(stack, org_id, "test", "read"),
        print_key=create_key(stack, org_id, "test", "read,print"),
    )


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
