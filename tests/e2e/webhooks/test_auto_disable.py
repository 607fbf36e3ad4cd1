"""An endpoint whose receiver keeps failing, through the public HTTP API of the running stack: it is
disabled once the (shortened) period is over, the organization's owner gets an e-mail at the stack's
SMTP server, events produced meanwhile are never sent, and re-enabling it resumes sending."""

from __future__ import annotations

import json
import time
from email.message import Message
from typing import Any

from standardwebhooks import Webhook

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually, every_item
from tests.e2e.jobs_api import create, pdf_body
from tests.e2e.tenants import office_tenant
from tests.e2e.webhooks.conftest import AUTO_DISABLE_AFTER_SECONDS
from tests.support.receiver import Answer, Received, Receiver

AUTO_DISABLED_REASON = "Disabled automatically after 5 days of failed deliveries"
OWNER = "owner@disabled-hooks.test"
EVENTS = ["printjob.queued", "printjob.done"]
# The receiver and the test read the same wall clock; this covers its granularity.
CLOCK_GRANULARITY = 0.001


def _job_ids(requests: list[Received]) -> set[str]:
    return {json.loads(r.body)["data"].get("id") for r in requests}


def _mails_to(stack: Stack, recipient: str) -> list[Message]:
    assert stack.smtp_sink is not None
    return [m for m in stack.smtp_sink.received() if m["To"] == recipient]


def test_a_failing_endpoint_is_disabled_its_owner_mailed_and_reenabling_resumes(webhooks_stack: Stack) -> None:
    # An organization of its own: its owner's mailbox and its events concern this test only.
    tenant = office_tenant(webhooks_stack, "Failing hooks", OWNER)
    healthy = False

    def answer(_request: Received, _count: int) -> Answer:
        return Answer(200) if healthy else Answer(500, b"down")

    with api(webhooks_stack.api_url, tenant.key) as client, Receiver(answer) as receiver:
        created = client.post("/v1/webhooks", json={"url": receiver.url("/failing"), "events": EVENTS})
        assert created.status_code == 201, created.text
        endpoint = created.json()
        path = f"/v1/webhooks/{endpoint['id']}"
        try:

            def disabled_after_another_failure() -> dict[str, Any] | None:
                shown = client.get(path).json()
                if not shown["enabled"]:
                    return shown
                # One more failed delivery now; 409 when it was disabled in between.
                assert client.post(f"{path}/ping").status_code in (202, 409)
                return None

            shown = eventually(disabled_after_another_failure, timeout=AUTO_DISABLE_AFTER_SECONDS + 30, interval=1.0,
                               what="the failing endpoint disabled")  # fmt: skip
            disabled_seen = time.time()
            assert shown["disabledReason"] == AUTO_DISABLED_REASON
            # Not before the period: the failure mark dates from the first failed attempt at the earliest.
            first_failure = receiver.received()[0].wall
            assert disabled_seen - first_failure >= AUTO_DISABLE_AFTER_SECONDS - CLOCK_GRANULARITY

            [mail] = eventually(lambda: _mails_to(webhooks_stack, OWNER), timeout=30, what="the owner's e-mail")
            text = mail.get_payload(decode=True).decode()
            assert AUTO_DISABLED_REASON in text and endpoint["id"] in text and receiver.url("/failing") in text

            # A job printed while the endpoint is disabled: once its last event is in the feed, the
            # service has handled all of them (one job's events share a partition, in order).
            while_disabled = create(client, pdf_body(tenant.printer_id, title="while disabled"))["id"]
            eventually(
                lambda: any(e["type"] == "printjob.done" and e["data"]["id"] == while_disabled
                            for e in every_item(client, "/v1/events")),
                timeout=60, what="the job printed while disabled in the feed",
            )  # fmt: skip
            logged = [d["payload"]["data"].get("id") for d in every_item(client, f"{path}/deliveries")]
            assert while_disabled not in logged

            healthy = True
            enabled = client.patch(path, json={"enabled": True})
            assert enabled.status_code == 200, enabled.text
            assert enabled.json()["enabled"] is True and enabled.json()["disabledReason"] is None
            after = create(client, pdf_body(tenant.printer_id, title="after re-enabling"))["id"]

            def delivered_after() -> list[dict[str, Any]] | None:
                hook = Webhook(endpoint["secret"])
                payloads = [hook.verify(r.body, r.headers) for r in receiver.received("/failing")]
                mine = [p for p in payloads if p["data"].get("id") == after]
                return mine if {p["type"] for p in mine} == set(EVENTS) else None

            eventually(delivered_after, timeout=60, what="the new job's events delivered after re-enabling")
            assert client.get(path).json()["enabled"] is True
            assert while_disabled not in _job_ids(receiver.received())
            assert len(_mails_to(webhooks_stack, OWNER)) == 1
        finally:
            client.delete(path)
