"""A stack of its own for the webhook tests: it may deliver to 127.0.0.1 (and nowhere else private),
claims expire quickly after a crash, retries are scaled down, and endpoints are disabled after
half a minute of failures instead of 5 days. The webhooks service e-mails owners through the stack's
SMTP sink (`Stack.smtp_sink`). jobs creates its jobs on `printcloud.job-events`, so their events
reach webhooks by the topic that a later release makes the default (the other stacks keep
`printcloud.domain-events`, 1.1's default)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence

import pytest

from printcloud.core.kafka.bus import Producer
from printcloud.core.kafka.envelope import Message
from printcloud.core.rpc import service_auth
from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from tests.e2e.client import PDF_BASE64, api
from tests.e2e.stacks import LogFile, running_stack
from tests.e2e.tenants import OfficeTenant, office_tenant
from tests.support.service_token import channel_as

# Longer than any other test here keeps an endpoint failing: the crash test's held requests time out
# (5 s) only until its events are all in the feed, a few seconds later; every other receiver answers.
AUTO_DISABLE_AFTER_SECONDS = 30.0

WEBHOOK_STACK_ENV = {
    "PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32",
    "PRINTCLOUD_CLAIM_LEASE_SECONDS": "3",
    "PRINTCLOUD_ANSWER_TIMEOUT_SECONDS": "5",
    "PRINTCLOUD_RETRY_SCHEDULE_SCALE": "0.01",
    "PRINTCLOUD_AUTO_DISABLE_AFTER_SECONDS": str(AUTO_DISABLE_AFTER_SECONDS),
    "PRINTCLOUD_CREATE_JOBS_ON_JOB_EVENTS_TOPIC": "true",
}


@pytest.fixture(scope="package")
def webhooks_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("webhooks-stack")
    with running_stack(data_dir, LogFile(data_dir / "services.log"), WEBHOOK_STACK_ENV) as running:
        yield running


@pytest.fixture(scope="package")
def webhook_tenant(webhooks_stack: Stack) -> OfficeTenant:
    return office_tenant(webhooks_stack, "Hooks", "owner@hooks.test")


@pytest.fixture
def webhooks_grpc(webhooks_stack: Stack) -> Iterator[webhooks_pb2_grpc.WebhooksStub]:
    """The webhooks service's own gRPC API: these tests drive it directly, as the gateway does."""
    target = f"127.0.0.1:{webhooks_stack.config.webhooks_grpc_port}"
    with channel_as(target, service_auth.API_GATEWAY, webhooks_stack.internal_auth_secret) as channel:
        yield webhooks_pb2_grpc.WebhooksStub(channel)


def publish(stack: Stack, topic: str, messages: Sequence[Message]) -> None:
    """Events as a service publishes them, straight onto `topic`, each keyed by its resource id."""

    async def send() -> None:
        producer = Producer(stack.broker.bootstrap if stack.broker else "")
        await producer.start()
        try:
            await producer.send_many([(topic, str(m.data["id"]), m.encode(), {}) for m in messages])
        finally:
            await producer.stop()

    asyncio.run(send())


def printjob_feed(grpc_api: webhooks_pb2_grpc.WebhooksStub, scope: common_pb2.Scope) -> list[webhooks_pb2.FeedEvent]:
    """The scope's `printjob.*` feed events, oldest first, read as the spec's client reads the feed:
    dir=asc, `after` the last page's cursor. (A tenant's virtual computer's and printers' events are
    in the feed too.)"""
    events: list[webhooks_pb2.FeedEvent] = []
    after = None
    while True:
        page = grpc_api.ListEvents(
            webhooks_pb2.ListEventsRequest(scope=scope, page={"limit": 100, "dir": "asc", "after": after})
        )
        events.extend(item for item in page.items if item.type.startswith("printjob."))
        if not page.page.has_more:
            return events
        after = page.page.next_cursor


def submit_jobs(stack: Stack, tenant: OfficeTenant, count: int, title: str) -> list[str]:
    """`count` PDF jobs posted to the tenant's printer through the public API; their ids, in order."""
    with api(stack.api_url, tenant.key) as client:
        body = {"printerId": tenant.printer_id, "title": title, "contentType": "pdf_base64", "content": PDF_BASE64}
        ids = []
        for _ in range(count):
            response = client.post("/v1/printjobs", json=body)
            assert response.status_code == 201, response.text
            ids.append(response.json()["id"])
        return ids
