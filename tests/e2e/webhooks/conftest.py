"""A stack of its own for the webhook tests: it may deliver to 127.0.0.1 (and nowhere else private),
claims expire quickly after a crash, and retries are scaled down."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest

from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, webhooks_pb2_grpc
from tests.e2e.client import api, cli, eventually
from tests.e2e.stacks import LogFile, running_stack

WEBHOOK_STACK_ENV = {
    "PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32",
    "PRINTCLOUD_CLAIM_LEASE_SECONDS": "3",
    "PRINTCLOUD_ANSWER_TIMEOUT_SECONDS": "5",
    "PRINTCLOUD_RETRY_SCHEDULE_SCALE": "0.01",
}


@pytest.fixture(scope="package")
def webhooks_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("webhooks-stack")
    with running_stack(data_dir, LogFile(data_dir / "services.log"), WEBHOOK_STACK_ENV) as running:
        yield running


@dataclass
class WebhookTenant:
    scope: common_pb2.Scope
    key: str
    printer_id: str


@pytest.fixture(scope="package")
def webhook_tenant(webhooks_stack: Stack) -> WebhookTenant:
    url = webhooks_stack.database_url
    org = cli(url, "admin", "create-org", "--name", "Hooks", "--owner-email", "owner@hooks.test")
    key = cli(url, "admin", "create-key", "--org", org["id"], "--mode", "test", "--scopes", "read,print,admin")["key"]
    with api(webhooks_stack.api_url, key) as client:

        def office_printer() -> str | None:
            printers = client.get("/v1/printers").json()["data"]
            online = [p["id"] for p in printers if p["name"] == "virtual-office" and p["state"] == "online"]
            return online[0] if online else None

        printer_id = eventually(office_printer, timeout=60, what="the virtual office printer online")
    return WebhookTenant(common_pb2.Scope(organization_id=org["id"], mode="test"), key, printer_id)


@pytest.fixture
def webhooks_grpc(webhooks_stack: Stack) -> Iterator[webhooks_pb2_grpc.WebhooksStub]:
    """The webhooks service's own gRPC API: these tests drive it directly, as the gateway does."""
    with grpc.insecure_channel(f"127.0.0.1:{webhooks_stack.config.webhooks_grpc_port}") as channel:
        yield webhooks_pb2_grpc.WebhooksStub(channel)
