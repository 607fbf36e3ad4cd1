"""Kill the webhooks service while 1,000 deliveries are pending: after a restart every event reaches
every subscribed receiver at least once. Also measures throughput and the time from a job's state
change to its delivery."""

from __future__ import annotations

import contextlib
import json
import statistics
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from standardwebhooks import Webhook

from printcloud.core.ids import new_id
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.devstack.stack import Stack
from printcloud.v1 import webhooks_pb2, webhooks_pb2_grpc
from tests.e2e.client import eventually
from tests.e2e.tenants import OfficeTenant
from tests.e2e.webhooks.conftest import printjob_feed, publish, submit_jobs
from tests.support.receiver import Answer, Received, Receiver

# 200 events sent to 5 endpoints: 1,000 deliveries.
ENDPOINTS = 5
EVENTS = 200
PRINTJOB_EVENTS = ["printjob.queued", "printjob.sent", "printjob.received", "printjob.printing", "printjob.done"]


@contextlib.contextmanager
def _endpoints(
    grpc_api: webhooks_pb2_grpc.WebhooksStub, tenant: OfficeTenant, receiver: Receiver
) -> Iterator[dict[str, webhooks_pb2.WebhookEndpoint]]:
    """Endpoints /e0.. at the receiver, removed afterwards so that they load no later test."""
    endpoints = {
        f"/e{n}": grpc_api.CreateEndpoint(
            webhooks_pb2.CreateEndpointRequest(scope=tenant.scope, url=receiver.url(f"/e{n}"), events=PRINTJOB_EVENTS)
        )
        for n in range(ENDPOINTS)
    }
    try:
        yield endpoints
    finally:
        for endpoint in endpoints.values():
            grpc_api.DeleteEndpoint(webhooks_pb2.EndpointRef(scope=tenant.scope, id=endpoint.id))


def _publish_job_events(stack: Stack, tenant: OfficeTenant, count: int) -> None:
    """Domain events as the jobs service publishes them, straight onto the topic the webhooks
    service consumes: the crash test is about the webhooks service, not how fast jobs print."""
    messages = [
        Message(PRINTJOB_EVENTS[n % len(PRINTJOB_EVENTS)], tenant.scope.organization_id, "test",
                {"id": new_id(), "state": PRINTJOB_EVENTS[n % len(PRINTJOB_EVENTS)].split(".")[1]})
        for n in range(count)
    ]  # fmt: skip
    publish(stack, DOMAIN_EVENTS, messages)


def _feed_ids(grpc_api: webhooks_pb2_grpc.WebhooksStub, tenant: OfficeTenant) -> list[str]:
    return [event.id for event in printjob_feed(grpc_api, tenant.scope)]


def test_a_crash_with_1000_pending_deliveries_loses_none(
    webhooks_stack: Stack, webhook_tenant: OfficeTenant, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub
) -> None:
    gate = threading.Event()  # closed: the receiver holds every request, so deliveries stay pending

    def answer(_request: Received, _count: int) -> Answer:
        gate.wait(timeout=30)
        return Answer(204, b"")

    with Receiver(answer) as receiver, _endpoints(webhooks_grpc, webhook_tenant, receiver) as endpoints:
        _publish_job_events(webhooks_stack, webhook_tenant, EVENTS)
        expected_events = EVENTS
        # The feed is written in the transaction that queues the deliveries: once it holds every event,
        # all 1,000 deliveries exist. None has succeeded yet, because the receiver holds every request.
        eventually(lambda: len(_feed_ids(webhooks_grpc, webhook_tenant)) >= expected_events, timeout=90,
                   what="every job event in the feed")  # fmt: skip
        feed = _feed_ids(webhooks_grpc, webhook_tenant)
        assert len(feed) == len(set(feed)) == expected_events
        in_flight_at_kill = len(receiver.received())
        webhooks_stack.kill("webhooks")
        gate.set()
        assert in_flight_at_kill < ENDPOINTS * expected_events

        webhooks_stack.restart("webhooks")
        restarted = time.monotonic()
        expected = {(f"/e{n}", event_id) for n in range(ENDPOINTS) for event_id in feed}

        def delivered() -> set[tuple[str, str]]:
            return {(r.path, r.headers["webhook-id"]) for r in receiver.received()}

        eventually(lambda: expected <= delivered(), timeout=240, interval=0.5,
                   what="every event at every endpoint after the restart")  # fmt: skip
        elapsed = time.monotonic() - restarted
        requests = receiver.received()
    assert delivered() == expected
    for request in requests[:: max(1, len(requests) // 50)]:
        Webhook(endpoints[request.path].secret).verify(request.body, request.headers)
    after_restart = [r for r in requests if r.at >= restarted]
    print(f"\nafter restart: {len(after_restart)} deliveries in {elapsed:.1f}s "
          f"({len(after_restart) / elapsed:.0f}/s, including the wait for expired claims)")  # fmt: skip


def test_time_from_a_job_state_change_to_its_delivery(
    webhooks_stack: Stack, webhook_tenant: OfficeTenant, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub
) -> None:
    with Receiver() as receiver:
        created = webhooks_grpc.CreateEndpoint(
            webhooks_pb2.CreateEndpointRequest(
                scope=webhook_tenant.scope, url=receiver.url("/latency"), events=["printjob.done"]
            )
        )
        jobs = submit_jobs(webhooks_stack, webhook_tenant, 8, "latency")
        eventually(lambda: {json.loads(r.body)["data"]["id"] for r in receiver.received()} >= set(jobs),
                   timeout=120, what="every job's printjob.done delivery")  # fmt: skip
        webhooks_grpc.DeleteEndpoint(webhooks_pb2.EndpointRef(scope=webhook_tenant.scope, id=created.id))
    # Printed, not asserted: a wall-clock bound fails on a busy CI machine and proves nothing about
    # speed; `make bench` measures the latency (docs/performance.md).
    latencies = sorted(_latency(r) for r in receiver.received())
    p50 = statistics.median(latencies)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"\nstate change -> delivery: p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms over {len(latencies)}")


def _latency(request: Received) -> float:
    body: dict[str, Any] = json.loads(request.body)
    finished = datetime.fromisoformat(body["data"]["finishedAt"].replace("Z", "+00:00"))
    return request.wall - finished.timestamp()
