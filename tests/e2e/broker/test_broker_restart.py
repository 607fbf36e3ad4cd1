"""The broker loses its log (the embedded broker keeps it in memory, and is killed here): nothing
that was accepted is lost, because PostgreSQL's outboxes send it again to the broker's new life."""

from __future__ import annotations

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually, every_item
from tests.e2e.jobs_api import create, pdf_body, wait_terminal
from tests.e2e.tenants import office_tenant

LIFECYCLE = ["printjob.queued", "printjob.sent", "printjob.received", "printjob.printing", "printjob.done"]


def test_events_not_yet_consumed_when_the_broker_lost_its_log_still_reach_the_feed(broker_stack: Stack) -> None:
    tenant = office_tenant(broker_stack, "Broker loss", "owner@broker-loss.test")
    with api(broker_stack.api_url, tenant.key) as client:
        broker_stack.kill("webhooks")  # nobody consumes the job events now: they wait in the broker
        jobs = [create(client, pdf_body(tenant.printer_id, title=f"Before the loss {n}"))["id"] for n in range(3)]
        for job_id in jobs:
            assert wait_terminal(client, job_id, timeout=60)["state"] == "done"

        broker_stack.restart_broker()
        broker_stack.restart("webhooks")

        def every_lifecycle_in_feed() -> dict[str, list[str]] | None:
            types: dict[str, list[str]] = {job_id: [] for job_id in jobs}
            for event in every_item(client, "/v1/events", dir="asc"):
                if event["data"].get("id") in types:
                    types[event["data"]["id"]].append(event["type"])
            return types if all(set(LIFECYCLE) <= set(seen) for seen in types.values()) else None

        feed = eventually(every_lifecycle_in_feed, timeout=90, what="every job's events in the feed")
        for job_id, types in feed.items():
            assert sorted(types) == sorted(LIFECYCLE), f"each event once in the feed ({job_id})"


def test_jobs_and_organizations_after_the_broker_lost_its_log_work_as_before(broker_stack: Stack) -> None:
    broker_stack.restart_broker()
    # Made after the loss: `organization.created` and every job's commands go through the new log.
    tenant = office_tenant(broker_stack, "After the loss", "owner@after-loss.test")
    with api(broker_stack.api_url, tenant.key) as client:
        job = create(client, pdf_body(tenant.printer_id, title="After the loss"))
        assert wait_terminal(client, job["id"], timeout=60)["state"] == "done"
