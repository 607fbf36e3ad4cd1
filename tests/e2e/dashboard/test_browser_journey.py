"""The dashboard in a real browser (Debian's Chromium through Playwright): an owner's first hour and
a member's refusal, with a screenshot of every page in the test's output folder."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, api, eventually
from tests.e2e.dashboard.accounts import mails_to
from tests.e2e.tenants import create_org
from tests.support.receiver import Receiver

pytestmark = pytest.mark.e2e

_CODE = re.compile(r"sign-in code is (\d{6})")


class Journey:
    """One person's browser tab, numbering its screenshots in the order they were taken."""

    def __init__(self, browser: Any, stack: Stack, shots: Path, who: str) -> None:
        self.stack = stack
        self.context = browser.new_context(base_url=stack.api_url, viewport={"width": 1280, "height": 820})
        self.page = self.context.new_page()
        self.shots = shots
        self.who = who
        self.taken = 0

    def shot(self, name: str) -> None:
        self.taken += 1
        self.page.screenshot(path=str(self.shots / f"{self.who}-{self.taken:02d}-{name}.png"), full_page=True)

    def sign_in(self, email: str) -> None:
        page = self.page
        page.goto("/dashboard")
        assert page.url.endswith("/dashboard/sign-in")
        self.shot("sign-in")
        before = len(mails_to(self.stack, email))
        page.get_by_label("E-mail address").fill(email)
        page.get_by_role("button", name="E-mail me a code").click()
        assert page.get_by_label("Sign-in code").get_attribute("autocomplete") == "one-time-code"
        self.shot("enter-code")
        mail = eventually(lambda: mails_to(self.stack, email)[before:], timeout=10, what=f"the code for {email}")
        code = _CODE.search(mail[-1])
        assert code
        page.get_by_label("Sign-in code").fill(code.group(1))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/dashboard/overview")

    def reload_until(self, path: str, check: Any, what: str, timeout: float = 60) -> None:
        def ready() -> bool:
            self.page.goto(path)
            return bool(check())

        eventually(ready, timeout=timeout, interval=0.5, what=what)


def test_owner_journey_and_member_refusal(dashboard_stack: Stack, chromium: Any, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    suffix = uuid.uuid4().hex[:6]
    owner_email, member_email = f"owner-{suffix}@journey.test", f"member-{suffix}@journey.test"
    create_org(dashboard_stack, "Journey Labs", owner_email)

    owner = Journey(chromium, dashboard_stack, shots, "owner")
    page = owner.page
    owner.sign_in(owner_email)
    assert page.get_by_test_id("mode").inner_text() == "TEST MODE"
    owner.shot("overview")

    # An API key, shown once.
    page.goto("/dashboard/keys")
    page.get_by_label("Name").fill("Journey backend")
    page.get_by_role("button", name="Create key").click()
    secret = page.get_by_test_id("api-key").input_value()
    assert secret.startswith("svc_test_")
    owner.shot("key-created")
    page.goto("/dashboard/keys")
    assert secret not in page.content() and f"{secret[:12]}…{secret[-4:]}" in page.content()
    owner.shot("keys")

    # The four virtual printers, online.
    owner.reload_until(
        "/dashboard/printers",
        lambda: page.locator("tr[data-printer] .state-online").count() == 4,
        "four online printers",
    )
    assert sorted(page.locator("tr[data-printer]").evaluate_all("rows => rows.map(r => r.dataset.printer)")) == [
        "virtual-label", "virtual-office", "virtual-photo", "virtual-windows",
    ]  # fmt: skip
    owner.shot("printers")

    # A PDF printed from the browser reaches done.
    with api(dashboard_stack.api_url, secret) as client:
        office = next(p for p in client.get("/v1/printers").json()["data"] if p["name"] == "virtual-office")
    page.goto("/dashboard/print")
    page.get_by_label("Printer").select_option(office["id"])
    page.get_by_label("PDF file (up to 25 MB)").set_input_files(
        {"name": "journey.pdf", "mimeType": "application/pdf", "buffer": MINIMAL_PDF}
    )
    owner.shot("print")
    page.get_by_role("button", name="Print").click()
    page.wait_for_url(re.compile(r".*/dashboard/jobs/[0-9a-f-]{36}$"))
    job_path = page.url.removeprefix(dashboard_stack.api_url)
    owner.reload_until(job_path, lambda: page.get_by_test_id("job-state").inner_text() == "done", "the job done")
    assert page.locator("table").inner_text().count("\n") >= 4  # queued, sent, ..., done in the history
    owner.shot("job-done")
    page.goto("/dashboard/jobs?state=done")
    assert "journey.pdf" in page.content()
    owner.shot("jobs")

    # A webhook endpoint on 127.0.0.1, its secret shown once, and its deliveries.
    with Receiver() as receiver:
        page.goto("/dashboard/webhooks")
        page.get_by_label("URL").fill(receiver.url())
        page.get_by_label("Description").fill("Journey receiver")
        page.get_by_label("printjob.done").check()
        page.get_by_role("button", name="Create endpoint").click()
        assert page.get_by_test_id("secret").input_value().startswith("whsec_")
        owner.shot("webhook-created")
        page.get_by_role("link", name="Go to the endpoint").click()
        page.get_by_role("button", name="Send a ping").click()
        endpoint_path = page.url.removeprefix(dashboard_stack.api_url).split("?")[0]
        owner.reload_until(
            endpoint_path,
            lambda: page.get_by_test_id("deliveries").locator(".state-succeeded").count() >= 1,
            "a delivered ping",
        )
        assert receiver.received()
        owner.shot("webhook")
    page.goto("/dashboard/webhooks")
    owner.shot("webhooks")
    # The feed shows an event once it is 2 s old (spec: events appear after a short delay), and
    # the webhook steps above can take less than that.
    owner.reload_until("/dashboard/events", lambda: "printjob.done" in page.content(), "the job's events in the feed")
    owner.shot("events")

    # A member invited.
    page.goto("/dashboard/members")
    page.get_by_label("E-mail address").fill(member_email)
    page.get_by_label("Role").select_option("member")
    page.get_by_role("button", name="Invite").click()
    assert page.get_by_role("status").inner_text().startswith("Invitation sent")
    assert member_email in page.content()
    owner.shot("members")
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/dashboard/sign-in?notice=signed-out")
    owner.context.close()

    # The member signs in, sees the printers, and is refused an owner action.
    member = Journey(chromium, dashboard_stack, shots, "member")
    member.sign_in(member_email)
    member.page.goto("/dashboard/members")
    assert "Only owners can invite" in member.page.content()
    member.page.get_by_label("E-mail address").fill(f"friend-{suffix}@journey.test")
    member.page.get_by_role("button", name="Invite").click()
    alert = member.page.get_by_role("alert").inner_text()
    assert "forbidden" in alert and "Your role (member) does not allow this" in alert
    member.shot("forbidden")
    member.page.goto("/dashboard/keys")
    assert "forbidden" in member.page.get_by_role("alert").inner_text()
    member.context.close()
    assert len(list(shots.glob("*.png"))) >= 15
