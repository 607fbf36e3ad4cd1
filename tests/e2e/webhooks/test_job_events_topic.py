"""The webhooks service reads `printcloud.job-events` as it reads `printcloud.domain-events`: a job's
events published there reach its tenant's feed once each, in the order they were published."""

from __future__ import annotations

from printcloud.core.ids import new_id
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import JOB_EVENTS
from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, webhooks_pb2_grpc
from tests.e2e.client import eventually
from tests.e2e.tenants import office_tenant
from tests.e2e.webhooks.conftest import printjob_feed, publish

STATES = ("queued", "sent", "received", "printing", "done")


def _feed_types(grpc_api: webhooks_pb2_grpc.WebhooksStub, scope: common_pb2.Scope) -> list[str]:
    return [event.type for event in printjob_feed(grpc_api, scope)]


def test_a_jobs_events_on_the_job_events_topic_reach_the_feed_in_order(
    webhooks_stack: Stack, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub
) -> None:
    # A tenant of its own: the other tests here count their tenant's job events.
    tenant = office_tenant(webhooks_stack, "Topics", "owner@topics.test")
    job_id = new_id()
    messages = [Message(f"printjob.{state}", tenant.scope.organization_id, "test", {"id": job_id, "state": state})
                for state in STATES]  # fmt: skip

    publish(webhooks_stack, JOB_EVENTS, messages)

    feed = eventually(
        lambda: len(events := _feed_types(webhooks_grpc, tenant.scope)) >= len(STATES) and events,
        timeout=60,
        what="the job's five events in the feed",
    )
    assert feed == [f"printjob.{state}" for state in STATES]
