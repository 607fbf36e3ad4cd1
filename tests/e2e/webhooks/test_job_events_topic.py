"""The webhooks service reads `printcloud.job-events` as it reads `printcloud.domain-events`: a job's
events published there reach its tenant's feed once each, in the order they were published; and a
jobs service told to create its jobs there sends every event of a job through it."""

from __future__ import annotations

from printcloud.core.ids import new_id
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import JOB_EVENTS
from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, webhooks_pb2_grpc
from tests.e2e.client import eventually
from tests.e2e.event_log import EventLog
from tests.e2e.tenants import office_tenant
from tests.e2e.webhooks.conftest import printjob_feed, publish, submit_jobs

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


def test_a_job_printed_through_the_api_travels_on_the_job_events_topic(
    webhooks_stack: Stack, webhooks_grpc: webhooks_pb2_grpc.WebhooksStub
) -> None:
    tenant = office_tenant(webhooks_stack, "Topic printing", "owner@topic-printing.test")
    (job_id,) = submit_jobs(webhooks_stack, tenant, 1, "By its own topic")

    feed = eventually(
        lambda: "printjob.done" in (events := _feed_types(webhooks_grpc, tenant.scope)) and events,
        timeout=60,
        what="the job done in the feed",
    )
    assert feed == [f"printjob.{state}" for state in STATES]
    # Each event is published once, to one topic: all five here means none went elsewhere.
    log = EventLog(webhooks_stack.describe()["kafka_bootstrap_servers"], JOB_EVENTS)
    log.start()
    try:
        published = eventually(
            lambda: len(found := log.of(job_id)) >= len(STATES) and found, what="the job's events on job-events"
        )
    finally:
        log.stop()
    assert [message.type for message in published] == [f"printjob.{state}" for state in STATES]
