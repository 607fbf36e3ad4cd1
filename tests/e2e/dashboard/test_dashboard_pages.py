"""The dashboard's forms beyond the browser journey, over plain HTTP: reprint and cancel, a webhook
endpoint edited, disabled, enabled and replayed, and the API's refusals shown in its own words."""

from __future__ import annotations

import json
import re
import uuid

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, eventually
from tests.e2e.dashboard.accounts import csrf_of, signed_in
from tests.e2e.tenants import create_org
from tests.support.receiver import Receiver

pytestmark = pytest.mark.e2e

_JOB = re.compile(r"/dashboard/jobs/([0-9a-f-]{36})$")


@pytest.fixture(scope="module")
def owner(dashboard_stack: Stack) -> httpx.Client:
    email = f"pages-{uuid.uuid4().hex[:6]}@pages.test"
    create_org(dashboard_stack, "Pages", email)
    return signed_in(dashboard_stack, email)


def _online_printer(owner: httpx.Client) -> str:
    def found() -> str | None:
        online = [p["id"] for p in owner.get("/v1/printers").json()["data"] if p["state"] == "online"]
        return online[0] if online else None

    return eventually(found, timeout=60, what="an online printer")


def test_print_reprint_and_a_refused_cancel(owner: httpx.Client) -> None:
    printer = _online_printer(owner)
    printed = owner.post(
        "/dashboard/print",
        data={"printerId": printer, "title": "", "qty": "2", "csrf_token": csrf_of(owner)},
        files={"document": ("pages.pdf", MINIMAL_PDF, "application/pdf")},
    )
    assert printed.status_code == 303, printed.text[:500]
    job_id = _JOB.search(printed.headers["location"]).group(1)  # type: ignore[union-attr]
    job = owner.get(f"/v1/printjobs/{job_id}").json()
    assert (job["title"], job["qty"], job["source"]) == ("pages.pdf", 2, "dashboard")
    eventually(lambda: owner.get(f"/v1/printjobs/{job_id}").json()["state"] == "done", timeout=30, what="done")

    # A cancel from a page older than the job's state is explained on the job's page.
    cancelled = owner.post(f"/dashboard/jobs/{job_id}/cancel", data={"csrf_token": csrf_of(owner)})
    assert cancelled.status_code == 303 and cancelled.headers["location"].endswith("notice=not-cancellable")
    assert "can no longer be cancelled" in owner.get(cancelled.headers["location"]).text
    assert owner.get(f"/v1/printjobs/{job_id}").json()["state"] == "done"

    reprint = {"printerId": printer, "title": "pages.pdf", "qty": "2", "csrf_token": csrf_of(owner)}
    reprinted = owner.post(f"/dashboard/jobs/{job_id}/reprint", data=reprint)
    assert reprinted.status_code == 303
    again_id = _JOB.search(reprinted.headers["location"].split("?")[0]).group(1)  # type: ignore[union-attr]
    again = owner.get(f"/v1/printjobs/{again_id}").json()
    assert again["id"] != job_id and again["fileSha256"] == job["fileSha256"] and again["title"] == "pages.pdf"
    assert (again["qty"], again["source"]) == (2, "dashboard")

    listed = owner.get("/dashboard/jobs", params={"state": "done", "printerId": printer}).text
    assert "pages.pdf" in listed


def test_a_print_without_a_file_shows_the_reason(owner: httpx.Client) -> None:
    answer = owner.post(
        "/dashboard/print", data={"printerId": _online_printer(owner), "csrf_token": csrf_of(owner)}, files={}
    )
    assert answer.status_code == 400 and "Choose a PDF file to print." in answer.text
    assert 'aria-describedby="document-error"' in answer.text, "beside the file field"


def test_a_webhook_endpoint_edited_disabled_enabled_and_replayed(owner: httpx.Client) -> None:
    with Receiver() as receiver:
        created = owner.post(
            "/dashboard/webhooks",
            data={"url": receiver.url(), "events": ["printjob.done"], "csrf_token": csrf_of(owner)},
        )
        assert created.status_code == 303 and created.headers["location"] == "/dashboard/webhooks/created"
        assert "whsec_" in owner.get("/dashboard/webhooks/created").text
        endpoint = owner.get("/v1/webhooks").json()["data"][0]
        page = f"/dashboard/webhooks/{endpoint['id']}"

        events = ["printjob.done", "printjob.error"]
        form = {"url": receiver.url("/edited"), "description": "Edited", "events": events, "csrf_token": csrf_of(owner)}
        edited = owner.post(page, data=form)
        assert edited.status_code == 303
        changed = owner.get(f"/v1/webhooks/{endpoint['id']}").json()
        assert (changed["url"], changed["description"]) == (receiver.url("/edited"), "Edited")
        assert changed["events"] == events

        assert owner.post(f"{page}/enabled", data={"enabled": "false", "csrf_token": csrf_of(owner)}).status_code == 303
        refused = owner.post(f"{page}/ping", data={"csrf_token": csrf_of(owner)})
        assert refused.status_code == 409 and "<strong>endpoint_disabled</strong>" in refused.text
        assert owner.post(f"{page}/enabled", data={"enabled": "true", "csrf_token": csrf_of(owner)}).status_code == 303

        assert owner.post(f"{page}/ping", data={"csrf_token": csrf_of(owner)}).status_code == 303
        # Other tests' jobs may be delivered here too: follow the ping alone.
        ping = eventually(
            lambda: next((d for d in owner.get(f"/v1/webhooks/{endpoint['id']}/deliveries").json()["data"]
                          if d["eventType"] == "ping" and d["status"] == "succeeded"), None),
            timeout=20,
            what="the ping delivered",
        )  # fmt: skip
        replay = f"/dashboard/webhooks/deliveries/{ping['id']}/replay"
        replayed = owner.post(replay, data={"csrf_token": csrf_of(owner)})
        assert replayed.status_code == 303

        def ping_sends() -> list[str]:
            return [
                r.headers["webhook-id"] for r in receiver.received("/edited") if json.loads(r.body)["type"] == "ping"
            ]

        sent = eventually(lambda: len(ping_sends()) >= 2 and ping_sends(), timeout=20, what="the replay delivered")
        assert len(set(sent)) == 1  # a replay sends the same webhook-id

        assert owner.post(f"{page}/delete", data={"csrf_token": csrf_of(owner)}).status_code == 303
        assert owner.get("/v1/webhooks").json()["data"] == []
