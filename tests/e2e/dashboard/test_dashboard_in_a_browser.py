"""The dashboard as a team lives in it, in Debian's Chromium under the production Content-Security-
Policy: an owner and a member (a browser context each), the bugs found by trying it, pages that
follow state by themselves, confirmations, a phone's width, and every page checked by axe-core.
Screenshots go to .dev/screenshots/dashboard; each page's load time is printed at the end."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from playwright.sync_api import expect

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, PDF_BASE64, api, eventually
from tests.e2e.dashboard.accounts import COOKIE, csrf_of, mails_to, signed_in
from tests.e2e.dashboard.browser import LOAD_TIMES, SCREENSHOTS, Person, wait_until
from tests.e2e.lifecycle.scripted_agent import Reply, ScriptedAgent, always
from tests.e2e.tenants import create_key, create_org
from tests.support.receiver import Receiver

pytestmark = pytest.mark.e2e

LIVE_WAIT_MS = 30_000
AGENT_CLI = str(Path(sys.executable).with_name("printcloud-agent"))
PAIRING_CODE = re.compile(r"[0-9A-HJKMNP-TV-Z]{4}(?:-[0-9A-HJKMNP-TV-Z]{4}){2}")
PHONE = {"width": 390, "height": 844}
NARROWEST = {"width": 360, "height": 740}


@dataclass
class Lab:
    """A computer of the owner's organization (test mode) whose scripted agent takes jobs and says
    nothing more until the test moves them."""

    computer_id: str
    printer_id: str
    agent: ScriptedAgent


@dataclass
class Team:
    stack: Stack
    org_id: str
    owner_email: str
    member_email: str
    key: str  # a test key of every scope, to set things up behind the browser's back
    owner: Person
    member: Person
    lab: Lab

    def api(self) -> httpx.Client:
        return api(self.stack.api_url, self.key)


def _enrol_lab(stack: Stack, key: str) -> Lab:
    with api(stack.api_url, key) as client:
        enrolled = client.post("/v1/agent/enroll", json={"hostname": "lab-pc", "name": "Lab"}).json()
        agent = ScriptedAgent(enrolled["credential"], always(Reply.IGNORE))
        agent.connect(stack.agent_gateway_url)

        def printer() -> str | None:
            found = client.get(f"/v1/computers/{enrolled['computerId']}/printers").json()["data"]
            return found[0]["id"] if found else None

        return Lab(enrolled["computerId"], eventually(printer, what="the lab's printer"), agent)


@pytest.fixture(scope="module")
def team(dashboard_stack: Stack, chromium: Any) -> Iterator[Team]:
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    suffix = uuid.uuid4().hex[:6]
    owner_email, member_email = f"owner-{suffix}@browser.test", f"member-{suffix}@browser.test"
    org_id = create_org(dashboard_stack, "Browser Labs", owner_email)
    inviter = signed_in(dashboard_stack, owner_email)
    invited = inviter.post(
        "/dashboard/members/invite", data={"email": member_email, "role": "member", "csrf_token": csrf_of(inviter)}
    )
    assert invited.status_code == 303, invited.text[:500]
    inviter.close()
    key = create_key(dashboard_stack, org_id, "test", "read,print,admin")
    owner, member = Person(chromium, dashboard_stack, "owner"), Person(chromium, dashboard_stack, "member")
    owner.sign_in(owner_email)
    member.sign_in(member_email)
    lab = _enrol_lab(dashboard_stack, key)
    yield Team(dashboard_stack, org_id, owner_email, member_email, key, owner, member, lab)
    lab.agent.shutdown()
    owner.close()
    member.close()
    if LOAD_TIMES:
        print(f"\nscreenshots: {SCREENSHOTS}\npage load times (navigation start to load event), slowest first:")
        for name, ms in sorted(LOAD_TIMES.items(), key=lambda item: -item[1]):
            print(f"  {ms:7.1f} ms  {name}")


@pytest.fixture(autouse=True)
def nothing_went_wrong_in_the_browser(team: Team) -> Iterator[None]:
    """No console error (a refused script or style, a bad pattern), no resource a page loads
    failing, in any test: the problems are collected as they happen."""
    team.owner.problems.clear()
    team.member.problems.clear()
    yield
    assert team.owner.problems == [] and team.member.problems == []


def printers_of(team: Team) -> dict[str, dict[str, Any]]:
    """The virtual printers by name, once all four are online."""
    with team.api() as client:

        def online() -> dict[str, dict[str, Any]] | None:
            printers = [p for p in client.get("/v1/printers").json()["data"] if p["name"].startswith("virtual-")]
            if len(printers) == 4 and all(p["state"] == "online" for p in printers):
                return {p["name"]: p for p in printers}
            return None

        return eventually(online, timeout=60, what="four online virtual printers")


def print_job(team: Team, printer_id: str, title: str, **extra: Any) -> dict[str, Any]:
    body = {"printerId": printer_id, "title": title, "contentType": "pdf_base64", "content": PDF_BASE64, **extra}
    with team.api() as client:
        created = client.post("/v1/printjobs", json=body)
    assert created.status_code == 201, created.text
    job: dict[str, Any] = created.json()
    return job


def sent_to_the_lab(team: Team, title: str) -> dict[str, Any]:
    """A job its agent has been sent and keeps quiet about: cancellable until the test moves it."""
    job = print_job(team, team.lab.printer_id, title)
    with team.api() as client:
        eventually(lambda: client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "sent", what="sent")
    return job


def keep_marker(person: Person) -> None:
    person.page.evaluate("() => { window.printcloudNotReloaded = true; }")


def not_reloaded(person: Person) -> bool:
    return bool(person.page.evaluate("() => window.printcloudNotReloaded === true"))


def sql(stack: Stack, query: str, *args: object) -> Any:
    async def run() -> Any:
        connection = await asyncpg.connect(stack.database_url)
        try:
            return await connection.fetchval(query, *args)
        finally:
            await connection.close()

    # Playwright's synchronous API keeps an event loop running on this thread.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result()


# --- The bugs ---------------------------------------------------------------------------------


def test_the_sign_in_code_field_validates_in_chromium_and_the_icon_loads(team: Team, chromium: Any) -> None:
    visitor = Person(chromium, team.stack, "visitor")
    try:
        visitor.visit("/dashboard/sign-in", "sign-in")
        visitor.shot("sign-in")
        icon = visitor.page.locator("link[rel=icon]").get_attribute("href")
        answer = visitor.page.request.get(str(icon))
        assert answer.status == 200 and answer.headers["content-type"] == "image/svg+xml"
        visitor.page.get_by_label("E-mail address").fill(f"visitor-{uuid.uuid4().hex[:6]}@browser.test")
        visitor.page.get_by_role("button", name="E-mail me a code").click()
        visitor.page.wait_for_url("**/dashboard/sign-in/code")
        code = visitor.page.get_by_label("Sign-in code")
        code.fill("12ab")
        # A pattern Chromium cannot compile is ignored (and logged): letters would then pass.
        assert code.evaluate("input => input.validity.patternMismatch") is True
        code.fill("123 456")
        assert code.evaluate("input => input.validity.valid") is True
        visitor.shot("enter-code")
        visitor.page.reload()  # post/redirect/get: the code page again, and no second code asked for
        assert visitor.path() == "/dashboard/sign-in/code"
        assert visitor.problems == []
    finally:
        visitor.close()


def test_an_unknown_page_is_a_page_in_the_dashboards_layout(team: Team) -> None:
    owner = team.owner
    response = owner.visit("/dashboard/no-such-page", "not-found")
    assert response.status == 404 and response.headers["content-type"].startswith("text/html")
    expect(owner.page.get_by_role("heading", name="Not found")).to_be_visible()
    expect(owner.page.get_by_role("navigation", name="Dashboard")).to_be_visible()
    owner.shot("not-found")
    owner.visit("/dashboard/jobs/")
    assert owner.path() == "/dashboard/jobs", "a slash too many leads to the page"


def test_a_secret_is_shown_once_and_a_reload_makes_nothing_more(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/keys", "keys")
    page.get_by_label("Name").fill("Shown once")
    page.get_by_role("button", name="Create key").click()
    assert owner.path() == "/dashboard/keys/created"
    secret = page.get_by_test_id("api-key").input_value()
    assert secret.startswith("svc_test_")
    owner.shot("key-created")
    page.reload()
    assert owner.path() == "/dashboard/keys?notice=secret-gone" and secret not in page.content()
    assert page.locator("td", has_text="Shown once").count() == 1, "the reload made no second key"

    with Receiver() as receiver:
        owner.visit("/dashboard/webhooks", "webhooks")
        page.get_by_label("URL").fill(receiver.url("/once"))
        page.get_by_label("printjob.done").check()
        page.get_by_role("button", name="Create endpoint").click()
        assert owner.path() == "/dashboard/webhooks/created"
        assert page.get_by_test_id("secret").input_value().startswith("whsec_")
        owner.shot("webhook-created")
        page.reload()
        assert owner.path() == "/dashboard/webhooks?notice=secret-gone" and "whsec_" not in page.content()
        with team.api() as client:
            urls = [e["url"] for e in client.get("/v1/webhooks").json()["data"]]
        assert urls.count(receiver.url("/once")) == 1, "the reload made no second endpoint"


def test_lists_name_the_printer_and_events_name_what_they_are_about(team: Team) -> None:
    printers = printers_of(team)
    office = print_job(team, printers["virtual-office"]["id"], "named-office")
    photo = print_job(team, printers["virtual-photo"]["id"], "named-photo")
    owner = team.owner
    owner.visit("/dashboard/jobs", "jobs")
    for job, printer in ((office, "virtual-office"), (photo, "virtual-photo")):
        cell = owner.page.locator(f"tr[data-job='{job['id']}'] td").nth(2)
        assert cell.inner_text() == printers[printer]["displayName"]
    owner.shot("jobs")

    def about_the_job() -> bool:
        owner.visit("/dashboard/events", "events")
        return owner.page.get_by_role("link", name="named-office").count() > 0

    wait_until(about_the_job, "the job's events in the feed (shown 2 s after they happen)")
    link = owner.page.get_by_role("link", name="named-office").first
    assert link.get_attribute("href") == f"/dashboard/jobs/{office['id']}"
    owner.shot("events")


def test_a_member_is_offered_only_what_a_member_may_do(team: Team) -> None:
    member, page = team.member, team.member.page
    job = sent_to_the_lab(team, "member-sees")
    member.visit("/dashboard/overview", "overview")
    nav = page.get_by_role("navigation", name="Dashboard")
    for hidden in ("API keys", "Audit log", "Add a computer", "Pairing codes"):
        expect(nav.get_by_role("link", name=hidden)).to_have_count(0)
    expect(nav.get_by_role("link", name="Print a PDF")).to_have_count(1)
    member.visit(f"/dashboard/jobs/{job['id']}", "job")
    expect(page.get_by_test_id("job-state")).to_have_text("sent")
    expect(page.get_by_role("link", name="Cancel job")).to_have_count(0)
    expect(page.get_by_role("button", name="Reprint")).to_have_count(1)
    member.shot("job")
    with team.api() as client:
        endpoint = client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/member", "events": ["printjob.done"]})
    member.visit("/dashboard/webhooks", "webhooks")
    expect(page.get_by_role("button", name="Create endpoint")).to_have_count(0)
    member.visit(f"/dashboard/webhooks/{endpoint.json()['id']}", "webhook")
    for control in ("Send a ping", "Disable", "Save"):
        expect(page.get_by_role("button", name=control)).to_have_count(0)
    expect(page.get_by_role("link", name="Delete")).to_have_count(0)
    member.visit("/dashboard/members", "members")
    expect(page.get_by_role("button", name="Invite")).to_have_count(0)
    expect(page.get_by_role("link", name="Remove")).to_have_count(0)
    member.shot("members")
    member.visit(f"/dashboard/printers/{team.lab.printer_id}", "printer")
    expect(page.get_by_role("heading", name="Settings")).to_have_count(0)
    assert member.visit("/dashboard/keys", "keys").status == 403
    # The owner's invitation form says what a member may do, as the API enforces it.
    team.owner.visit("/dashboard/members", "members")
    options = team.owner.page.get_by_label("Role", exact=True).inner_text()
    assert "prints and cancels" not in options and "cannot cancel" in options


def test_an_invitation_is_emailed_and_can_be_revoked_after_a_question(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    invitee = f"invitee-{uuid.uuid4().hex[:6]}@browser.test"
    owner.visit("/dashboard/members", "members")
    page.get_by_label("E-mail address").fill(invitee)
    page.get_by_label("Role", exact=True).select_option("owner")
    page.get_by_role("button", name="Invite").click()
    assert owner.notice().startswith("Invitation sent by e-mail")
    mail = eventually(lambda: mails_to(team.stack, invitee), timeout=15, what="the invitation e-mail")
    assert "Browser Labs" in mail[0] and f"{team.owner_email} invited you" in mail[0]
    assert "http://127.0.0.1:8080/dashboard/sign-in" in mail[0] or "/dashboard/sign-in" in mail[0]
    row = page.locator("tr", has_text=invitee)
    row.get_by_role("link", name="Revoke").click()
    dialog = page.locator("dialog#confirm-dialog")
    expect(dialog).to_be_visible()
    assert invitee in dialog.inner_text()
    owner.shot("confirm-dialog")
    dialog.get_by_role("button", name="Keep it").click()
    expect(dialog).to_be_hidden()
    expect(page.locator("tr", has_text=invitee)).to_have_count(1)
    row.get_by_role("link", name="Revoke").click()
    dialog.get_by_role("button", name="Revoke invitation").click()
    page.wait_for_url("**/dashboard/members?notice=invitation-revoked")
    expect(page.locator("tr", has_text=invitee)).to_have_count(0)


def test_a_refused_form_shows_the_error_beside_its_field_and_keeps_the_input(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/webhooks", "webhooks")
    page.get_by_label("URL").fill("http://127.0.0.1:9/kept")
    page.get_by_label("Description").fill("Kept description")
    page.get_by_role("button", name="Create endpoint").click()
    error = page.locator("#events-error")
    expect(error).to_have_text("Choose at least one event to send to this endpoint.")
    assert page.locator("fieldset[aria-describedby=events-error]").count() == 1
    assert page.get_by_label("URL").input_value() == "http://127.0.0.1:9/kept"
    assert page.get_by_label("Description").input_value() == "Kept description"
    owner.shot("form-error")
    # The API's own refusal, beside the URL, with the events kept.
    page.get_by_label("URL").fill("http://10.1.2.3/private")
    page.get_by_label("printjob.error").check()
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.locator("#url-error")).to_contain_text("private")
    assert page.get_by_label("printjob.error").is_checked()
    with team.api() as client:
        assert all("kept" not in e["url"] for e in client.get("/v1/webhooks").json()["data"])


def test_cancel_follows_the_agent_and_a_late_cancel_is_explained(team: Team, chromium: Any) -> None:
    owner, page = team.owner, team.owner.page
    job = sent_to_the_lab(team, "cancel-me-not")
    owner.visit(f"/dashboard/jobs/{job['id']}", "job")
    expect(page.get_by_role("link", name="Cancel job")).to_be_visible()
    keep_marker(owner)
    team.lab.agent.report(job["id"], "received")
    expect(page.get_by_test_id("job-state")).to_have_text("received", timeout=LIVE_WAIT_MS)
    expect(page.get_by_role("link", name="Cancel job")).to_have_count(0)
    assert not_reloaded(owner)

    # Without scripts the page cannot follow: the late cancel is explained on the job's page.
    quiet = Person(chromium, team.stack, "noscript", scripts=False)
    try:
        quiet.sign_in(team.owner_email)
        late = sent_to_the_lab(team, "too-late")
        quiet.visit(f"/dashboard/jobs/{late['id']}", "job")
        team.lab.agent.report(late["id"], "received")
        with team.api() as client:
            eventually(lambda: client.get(f"/v1/printjobs/{late['id']}").json()["state"] == "received", what="received")
        quiet.page.get_by_role("link", name="Cancel job").click()
        assert quiet.path() == f"/dashboard/jobs/{late['id']}/cancel", "a confirmation page without scripts"
        quiet.shot("confirm-page")
        quiet.page.get_by_role("button", name="Cancel job").click()
        assert quiet.notice() == "The agent has already received this job: it can no longer be cancelled."
        quiet.shot("not-cancellable")
        assert quiet.problems == []
    finally:
        quiet.close()

    cancellable = sent_to_the_lab(team, "cancel-me")
    owner.visit(f"/dashboard/jobs/{cancellable['id']}", "job")
    page.get_by_role("link", name="Cancel job").click()
    page.locator("dialog#confirm-dialog").get_by_role("button", name="Cancel job").click()
    page.wait_for_url(f"**/dashboard/jobs/{cancellable['id']}?notice=cancelled")
    expect(page.get_by_test_id("job-state")).to_have_text("cancelled")


def test_a_pdf_printed_from_the_browser_reaches_done_and_its_reprint_keeps_the_copies(team: Team) -> None:
    office = printers_of(team)["virtual-office"]
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/print", "print")
    page.get_by_label("Printer").select_option(office["id"])
    page.get_by_label("PDF file (up to 25 MB)").set_input_files(
        {"name": "two-copies.pdf", "mimeType": "application/pdf", "buffer": MINIMAL_PDF}
    )
    page.get_by_label("Copies").fill("2")
    owner.shot("print")
    page.get_by_role("button", name="Print").click()
    page.wait_for_url(re.compile(r".*/dashboard/jobs/[0-9a-f-]{36}$"))
    keep_marker(owner)
    expect(page.get_by_test_id("job-state")).to_have_text("done", timeout=LIVE_WAIT_MS)
    assert not_reloaded(owner), "the page followed the job by itself"
    assert page.get_by_test_id("history").locator("tbody tr").count() == 5
    facts = page.locator("dl.facts").inner_text()
    assert office["displayName"] in facts and "193 bytes" in facts and "dashboard" in facts
    owner.shot("job-done")
    download = page.get_by_role("link", name=re.compile("Download the file"))
    stored = page.request.get(str(download.get_attribute("href")))
    assert stored.status == 200 and stored.body() == MINIMAL_PDF
    assert 'filename="two-copies.pdf"' in stored.headers["content-disposition"]

    original = owner.path()
    assert page.get_by_label("Copies").input_value() == "2"
    page.get_by_role("button", name="Reprint").click()
    page.wait_for_url(re.compile(r".*/dashboard/jobs/[0-9a-f-]{36}\?notice=reprinted$"))
    assert owner.path() != original
    with team.api() as client:
        again = client.get(f"/v1/printjobs/{owner.path().split('/')[-1].split('?')[0]}").json()
    assert (again["qty"], again["source"], again["title"]) == (2, "dashboard", "two-copies.pdf")
    assert again["fileSha256"] == hashlib.sha256(MINIMAL_PDF).hexdigest()


def test_the_jobs_list_and_the_overview_follow_states_by_themselves(team: Team) -> None:
    office = printers_of(team)["virtual-office"]
    owner, page = team.owner, team.owner.page
    for path in ("/dashboard/jobs", "/dashboard/overview"):
        job = print_job(team, office["id"], f"live-{path.rsplit('/', 1)[-1]}")
        owner.visit(path)
        keep_marker(owner)
        state = page.locator(f"tr[data-job='{job['id']}'] .state")
        expect(state).to_have_text("done", timeout=LIVE_WAIT_MS)
        assert not_reloaded(owner)


def test_removing_an_owner_works_and_the_only_owner_is_refused(team: Team, chromium: Any) -> None:
    suffix = uuid.uuid4().hex[:6]
    first_email, second_email = f"first-{suffix}@owners.test", f"second-{suffix}@owners.test"
    create_org(team.stack, "Two Owners", first_email)
    first = Person(chromium, team.stack, "first-owner")
    second = Person(chromium, team.stack, "second-owner")
    try:
        first.sign_in(first_email)
        first.visit("/dashboard/members", "members")
        first.page.get_by_label("E-mail address").fill(second_email)
        first.page.get_by_label("Role", exact=True).select_option("owner")
        first.page.get_by_role("button", name="Invite").click()
        second.sign_in(second_email)
        assert second.page.request.get("/v1/whoami").json()["user"]["role"] == "owner"

        first.visit("/dashboard/members", "members")
        first.page.locator("tr", has_text=second_email).get_by_role("link", name="Remove").click()
        first.page.locator("dialog#confirm-dialog").get_by_role("button", name="Remove member").click()
        assert first.notice() == "Member removed."
        assert second.page.request.get("/v1/whoami").status == 401, "the removed owner's session ends at once"
        second.visit("/dashboard/overview")
        assert second.path().startswith("/dashboard/sign-in")

        first.page.locator("tr", has_text=first_email).get_by_role("link", name="Remove").click()
        first.page.locator("dialog#confirm-dialog").get_by_role("button", name="Remove member").click()
        expect(first.page.get_by_role("alert")).to_contain_text("You are the organization's only owner")
        first.shot("only-owner-refused")
        assert first.page.request.get("/v1/whoami").status == 200
        assert first.problems == [] and second.problems == []
    finally:
        first.close()
        second.close()


# --- The new pages ------------------------------------------------------------------------------


def test_usage_and_plan_count_this_period(team: Team) -> None:
    owner = team.owner
    owner.visit("/dashboard/usage", "usage")
    before = int(owner.page.get_by_test_id("test-today").inner_text())
    print_job(team, printers_of(team)["virtual-label"]["id"], "counted")
    owner.visit("/dashboard/usage", "usage")
    assert int(owner.page.get_by_test_id("test-today").inner_text()) == before + 1
    assert owner.page.get_by_test_id("live-used").inner_text() == "0"
    expect(owner.page.get_by_text("free plan", exact=False).first).to_be_visible()
    owner.shot("usage")


def test_settings_rename_leave_and_delete_an_organization(team: Team, chromium: Any) -> None:
    suffix = uuid.uuid4().hex[:6]
    owner_email, member_email = f"doomed-{suffix}@settings.test", f"leaver-{suffix}@settings.test"
    org_id = create_org(team.stack, "Doomed", owner_email)
    key = create_key(team.stack, org_id, "test", "read")
    boss, leaver = Person(chromium, team.stack, "settings-owner"), Person(chromium, team.stack, "settings-member")
    try:
        boss.sign_in(owner_email)
        boss.visit("/dashboard/members")
        boss.page.get_by_label("E-mail address").fill(member_email)
        boss.page.get_by_role("button", name="Invite").click()
        leaver.sign_in(member_email)

        boss.visit("/dashboard/settings", "settings")
        boss.page.get_by_label("Organization name").fill("Doomed Ltd")
        boss.page.get_by_role("button", name="Rename").click()
        assert boss.notice() == "Organization renamed."
        expect(boss.page.get_by_role("heading", name="Settings")).to_be_visible()
        assert "Doomed Ltd (owner)" in boss.page.get_by_label("Organization", exact=True).inner_text()
        expect(boss.page.get_by_text("you cannot leave", exact=False)).to_be_visible()
        boss.shot("settings")

        leaver.visit("/dashboard/settings", "settings")
        expect(leaver.page.get_by_role("button", name=re.compile("Delete"))).to_have_count(0)
        leaver.page.get_by_role("link", name="Leave Doomed Ltd").click()
        leaver.page.locator("dialog#confirm-dialog").get_by_role("button", name="Leave organization").click()
        leaver.page.wait_for_url("**/dashboard/sign-in?notice=left")

        boss.page.get_by_label("Type the organization's name to confirm").fill("Doomed")
        boss.page.get_by_role("button", name="Delete Doomed Ltd").click()
        expect(boss.page.locator("#confirm_name-error")).to_contain_text("exactly")
        boss.page.get_by_label("Type the organization's name to confirm").fill("Doomed Ltd")
        boss.page.get_by_role("button", name="Delete Doomed Ltd").click()
        boss.page.wait_for_url("**/dashboard/sign-in?notice=organization-deleted")
        with api(team.stack.api_url, key) as client:
            assert client.get("/v1/printers").status_code == 401, "its keys are revoked"
        live_computers = "SELECT count(*) FROM devices.computers WHERE organization_id = $1 AND deleted_at IS NULL"
        eventually(
            lambda: sql(team.stack, live_computers, uuid.UUID(org_id)) == 0, timeout=30, what="its computers deleted"
        )
        assert boss.problems == [] and leaver.problems == []
    finally:
        boss.close()
        leaver.close()


def test_printers_and_computers_are_managed_from_their_pages(team: Team) -> None:
    office = printers_of(team)["virtual-office"]
    owner, page = team.owner, team.owner.page
    owner.visit(f"/dashboard/printers/{office['id']}", "printer")
    page.get_by_label("Display name").fill("Front office")
    page.get_by_label("Remarks").fill("Second floor")
    page.get_by_role("button", name="Save name and remarks").click()
    assert owner.notice() == "Saved."
    expect(page.get_by_role("heading", name="Front office")).to_be_visible()

    page.get_by_label("Paper", exact=True).select_option("A5")
    page.get_by_label("Two-sided").select_option("long-edge")
    page.get_by_role("button", name="Save default options").click()
    assert owner.notice() == "Saved."
    page.get_by_label("Paper name").fill("Postcard")
    page.get_by_label("Width (mm)").fill("100")
    page.get_by_label("Height (mm)").fill("148")
    page.get_by_role("button", name="Add paper").click()
    expect(page.locator("tr", has_text="Postcard")).to_contain_text("148 mm")
    page.get_by_role("button", name="Take off live (refuse jobs)").click()
    expect(page.get_by_test_id("printer-state")).to_contain_text("not live")
    owner.shot("printer-settings")
    with team.api() as client:
        printer = client.get(f"/v1/printers/{office['id']}").json()
    assert printer["defaultOptions"] == {**office["defaultOptions"], "paper": "A5", "duplex": "long-edge"}
    assert printer["customPapers"] == [{"name": "Postcard", "width": 1000, "height": 1480}]
    assert (printer["displayName"], printer["remarks"], printer["enabled"]) == ("Front office", "Second floor", False)
    owner.visit("/dashboard/print")
    assert page.locator(f"option[value='{office['id']}']").count() == 0, "not live: not offered"
    owner.visit(f"/dashboard/printers/{office['id']}")
    page.get_by_role("button", name="Make live (accept jobs)").click()
    page.locator("tr", has_text="Postcard").get_by_role("link", name="Remove").click()
    page.locator("dialog#confirm-dialog").get_by_role("button", name="Remove paper").click()
    expect(page.locator("tr", has_text="Postcard")).to_have_count(0)

    owner.visit(f"/dashboard/computers/{team.lab.computer_id}", "computer")
    page.get_by_label("Name").fill("Lab bench")
    page.get_by_role("button", name="Rename").click()
    expect(page.get_by_role("heading", name=re.compile("Lab bench"))).to_be_visible()
    page.get_by_role("button", name="Disable").click()
    expect(page.locator("#computer-state")).to_contain_text("disabled")
    owner.shot("computer-disabled")
    page.get_by_role("button", name="Enable").click()
    expect(page.locator("#computer-state")).not_to_contain_text("disabled")
    team.lab.agent.connect(team.stack.agent_gateway_url)  # the agent comes back, as a real one retries

    with team.api() as client:
        spare = client.post("/v1/agent/enroll", json={"hostname": "spare-pc", "name": "Spare"}).json()
    owner.visit(f"/dashboard/computers/{spare['computerId']}", "computer")
    page.get_by_role("link", name="Delete computer").click()
    page.locator("dialog#confirm-dialog").get_by_role("button", name="Delete computer").click()
    page.wait_for_url("**/dashboard/printers?notice=deleted")
    expect(page.get_by_role("link", name="Spare")).to_have_count(0)


def test_adding_a_computer_shows_the_steps_and_the_computer_arriving(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/agents/new", "add-computer")
    page.get_by_text("Or enrol one computer with an API key").click()
    page.get_by_role("button", name="Create an enrolment key").click()
    key = page.get_by_test_id("enrolment-key").input_value()
    command = str(page.get_by_test_id("enrol-pex").text_content())
    assert key.startswith("svc_test_") and f"--api-key {key}" in command and f"--server {team.stack.api_url}" in command
    owner.shot("add-computer")
    keep_marker(owner)
    # What `printcloud-agent enroll` does with the key.
    with api(team.stack.api_url, key) as client:
        assert client.post("/v1/agent/enroll", json={"hostname": "front-desk"}).status_code == 201
    expect(page.locator("#new-computers")).to_contain_text("front-desk", timeout=LIVE_WAIT_MS)
    assert not_reloaded(owner)
    page.reload()
    assert key not in page.content(), "the key is shown once"


def test_jobs_are_found_by_title_id_and_day_and_paged_both_ways(team: Team) -> None:
    label = printers_of(team)["virtual-label"]
    token = uuid.uuid4().hex[:8]
    made = [print_job(team, label["id"], f"batch {token} #{n:02d}") for n in range(27)]
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/jobs", "jobs")
    page.get_by_label("Title or job id").fill(token.upper())
    page.get_by_role("button", name="Search").click()
    rows = page.locator("#jobs-list tbody tr")
    expect(rows).to_have_count(25)
    assert rows.first.inner_text().startswith(f"batch {token} #26")
    page.get_by_role("link", name="Older →").click()
    expect(rows).to_have_count(2)
    assert rows.last.inner_text().startswith(f"batch {token} #00")
    page.get_by_role("link", name="← Newer").click()
    expect(rows).to_have_count(25)
    assert rows.first.inner_text().startswith(f"batch {token} #26")
    owner.shot("job-search")

    owner.visit(f"/dashboard/jobs?q={made[3]['id']}")
    expect(rows).to_have_count(1)
    assert rows.first.inner_text().startswith(f"batch {token} #03")
    today = datetime.now(UTC).date()
    owner.visit(f"/dashboard/jobs?q={token}&from={today + timedelta(days=1)}")
    expect(page.get_by_text("No print jobs.")).to_be_visible()
    owner.visit(f"/dashboard/jobs?q={token}&from={today}&to={today}")
    expect(rows).to_have_count(25)
    owner.visit(f"/dashboard/jobs?q={token}&from=2030-13-45")
    expect(page.locator("#from-error")).to_have_text("Enter a date as YYYY-MM-DD.")


def test_a_delivery_shows_its_request_and_the_log_filters_by_status(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    with Receiver() as receiver:
        with team.api() as client:
            endpoint = client.post("/v1/webhooks", json={"url": receiver.url("/log"), "events": ["printer.updated"]})
        endpoint_id = endpoint.json()["id"]
        owner.visit(f"/dashboard/webhooks/{endpoint_id}", "webhook")
        page.get_by_role("button", name="Send a ping").click()
        assert owner.notice() == "Ping queued."
        page.locator("#endpoint-deliveries").get_by_role("link", name="ping").click()
        expect(page.get_by_test_id("delivery-status")).to_have_text("succeeded", timeout=LIVE_WAIT_MS)
        headers = page.get_by_test_id("request-headers").inner_text()
        sent = receiver.received("/log")[0]
        assert f"webhook-id: {sent.headers['webhook-id']}" in headers
        assert f"webhook-signature: {sent.headers['webhook-signature']}" in headers
        assert '"type": "ping"' in page.get_by_test_id("payload").inner_text()
        owner.shot("delivery")
    owner.visit(f"/dashboard/webhooks/deliveries?status=succeeded&endpointId={endpoint_id}", "deliveries")
    expect(page.locator("#all-deliveries tbody tr")).to_have_count(1)
    owner.shot("deliveries")
    owner.visit(f"/dashboard/webhooks/deliveries?status=failed&endpointId={endpoint_id}", "deliveries")
    expect(page.get_by_text("No deliveries.")).to_be_visible()


def test_the_audit_log_says_who_did_what(team: Team) -> None:
    owner, page = team.owner, team.owner.page
    with team.api() as client:
        client.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/audited", "events": ["printjob.done"]})
    owner.visit("/dashboard/keys")
    page.get_by_label("Name").fill("Audited key")
    page.get_by_role("button", name="Create key").click()
    owner.visit("/dashboard/audit", "audit")
    log = page.get_by_test_id("audit")
    created = log.locator("tr[data-action='api_key.created']", has_text="Audited key").first
    assert team.owner_email in created.inner_text()
    hooked = log.locator("tr[data-action='webhook.created']", has_text="http://127.0.0.1:9/audited").first
    assert "API key (svc_test_" in hooked.inner_text(), "an API key's change names the key"
    invited = log.locator("tr[data-action='member.invited']", has_text=team.member_email)
    expect(invited).to_have_count(1)
    owner.shot("audit")
    assert team.member.visit("/dashboard/audit", "audit").status == 403


# --- Pairing codes ----------------------------------------------------------------------------


def _fits_a_phone(person: Person, name: str) -> None:
    """The page as it is, at a phone's width (then the usual width again): nothing wider than it."""
    person.page.set_viewport_size(PHONE)
    assert person.overflow() == 0, f"{person.path()} is wider than a 390 px phone: {person.too_wide()}"
    person.shot(f"{name}-phone")
    person.page.set_viewport_size({"width": 1280, "height": 820})


def test_an_owner_makes_a_pairing_code_an_agent_enrols_with_it_and_the_owner_revokes_it(
    team: Team, tmp_path: Path
) -> None:
    owner, page = team.owner, team.owner.page
    owner.visit("/dashboard/agents/new", "add-computer")
    page.get_by_label("Description").fill("Shops, wave 1")
    page.get_by_label("Computers it may enrol").fill("3")
    page.get_by_label("Valid for").fill("30")
    page.get_by_label("Unit of the lifetime").select_option("days")
    page.get_by_role("button", name="Make a pairing code").click()
    expect(page.locator("#lifetime-error")).to_contain_text("7 days")
    assert owner.path() == "/dashboard/agents/new", "the refusal is the page the form is on"
    assert page.get_by_label("Valid for").get_attribute("aria-describedby") == "lifetime-error"
    assert page.get_by_label("Description").input_value() == "Shops, wave 1"
    assert page.get_by_label("Computers it may enrol").input_value() == "3"
    assert page.get_by_label("Unit of the lifetime").input_value() == "days"
    owner.shot("pairing-code-refused")

    page.get_by_label("Valid for").fill("2")
    page.get_by_role("button", name="Make a pairing code").click()
    assert owner.path() == "/dashboard/agents/pairing-codes/created"
    code = page.get_by_test_id("pairing-code").input_value()
    assert PAIRING_CODE.fullmatch(code), code
    server = team.stack.api_url
    deb = str(page.get_by_test_id("enrol-deb").text_content())
    assert f'echo "{code}" | sudo printcloud-agent enroll --server {server} --code -' in deb
    pip_form = str(page.get_by_test_id("enrol-pip").text_content())
    [enrol_line] = [line for line in pip_form.splitlines() if " enroll " in line]
    assert enrol_line.endswith(f"enroll --server {server} --code {code}")
    assert "3 computers have enrolled with it" in page.get_by_role("main").inner_text()
    assert owner.axe_violations() == []
    owner.shot("pairing-code-created")
    _fits_a_phone(owner, "pairing-code-created")
    page.reload()
    assert owner.path() == "/dashboard/agents/pairing-codes?notice=secret-gone" and code not in page.content()

    # The page's own command, run by the real agent, with a name as the page says to add one.
    config = tmp_path / "agent.json"
    command = [AGENT_CLI, *shlex.split(enrol_line)[1:], "--name", "Shop 1"]
    environment = {**os.environ, "PRINTCLOUD_AGENT_CONFIG": str(config)}
    enrolled = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=60, check=False)
    assert enrolled.returncode == 0, enrolled.stderr
    computer_id = json.loads(config.read_text())["computerId"]

    codes = page.get_by_test_id("pairing-codes")
    row = codes.locator("tr", has_text="Shops, wave 1")
    owner.visit("/dashboard/agents/pairing-codes", "pairing-codes")
    expect(row).to_contain_text("1 of 3")
    expect(row.locator(".state")).to_have_text("active")
    owner.shot("pairing-codes")
    row.get_by_role("link", name=f"{code[:4]}-…").click()
    expect(page.get_by_test_id("code-uses")).to_have_text("1 of 3 computers, 2 left")
    enrolment = page.get_by_test_id("enrollments").get_by_role("link", name="Shop 1")
    assert enrolment.get_attribute("href") == f"/dashboard/computers/{computer_id}"
    assert owner.axe_violations() == []
    owner.shot("pairing-code")
    _fits_a_phone(owner, "pairing-code")

    page.get_by_role("link", name="Revoke code").click()
    dialog = page.locator("dialog#confirm-dialog")
    expect(dialog).to_contain_text(f"Revoke the pairing code {code[:4]}-…?")
    dialog.get_by_role("button", name="Keep it").click()
    expect(page.get_by_test_id("code-state")).to_have_text("active")
    page.get_by_role("link", name="Revoke code").click()
    dialog.get_by_role("button", name="Revoke code").click()
    page.wait_for_url("**/dashboard/agents/pairing-codes?notice=pairing-code-revoked")
    expect(row.locator(".state")).to_have_text("revoked")
    late = httpx.post(f"{server}/v1/agent/pair", json={"code": code, "hostname": "late-pc"}, timeout=30)
    assert late.status_code == 401, "a revoked code enrols nothing"
    owner.visit(f"/dashboard/computers/{computer_id}", "computer")
    expect(page.get_by_role("heading", name=re.compile("Shop 1"))).to_be_visible()

    owner.visit("/dashboard/audit", "audit")
    log = page.get_by_test_id("audit")
    for action, verb in (("pairing_code.created", "made"), ("pairing_code.revoked", "revoked")):
        entry = log.locator(f"tr[data-action='{action}']", has_text=f"Shops, wave 1 ({code[:4]}-…)")
        expect(entry).to_have_count(1)
        assert team.owner_email in entry.inner_text() and f"{verb} the pairing code" in entry.inner_text()
    assert code not in page.content(), "the log names the code by its hint only"


def test_a_member_sees_no_pairing_codes_and_is_refused_them(team: Team) -> None:
    with team.api() as client:
        made = client.post("/v1/agent/pairing-codes", json={"description": "Owners only"}).json()
    member, page = team.member, team.member.page
    member.visit("/dashboard/agents/new", "add-computer")
    expect(page.get_by_role("button", name="Make a pairing code")).to_have_count(0)
    expect(page.get_by_role("button", name="Create an enrolment key")).to_have_count(0)
    expect(page.get_by_role("link", name=re.compile("Pairing codes"))).to_have_count(0)
    member.visit("/dashboard/printers", "printers")
    expect(page.get_by_role("link", name=re.compile("Pairing codes|Add a computer"))).to_have_count(0)
    code_page = f"/dashboard/agents/pairing-codes/{made['id']}"
    for path in ("/dashboard/agents/pairing-codes", "/dashboard/agents/pairing-codes/created", code_page,
                 f"{code_page}/revoke"):  # fmt: skip
        assert member.visit(path).status == 403, path
        expect(page.get_by_role("alert")).to_contain_text("Your role (member) does not allow this")
    assert "Owners only" not in page.content()
    csrf = page.locator("input[name=csrf_token]").first.get_attribute("value")
    terms = {"csrf_token": str(csrf), "description": "By a member", "max_uses": "1"}
    terms.update({"lifetime": "1", "lifetime_unit": "days"})
    assert page.request.post("/dashboard/agents/new", form=terms).status == 403
    assert page.request.post(f"{code_page}/revoke", form={"csrf_token": str(csrf)}).status == 403
    with team.api() as client:
        listed = client.get("/v1/agent/pairing-codes", params={"limit": 100}).json()["data"]
    assert [c["state"] for c in listed if c["id"] == made["id"]] == ["active"]
    assert all(c["description"] != "By a member" for c in listed)


# --- Every page: a phone's width, and axe-core ------------------------------------------------------


def _pages(team: Team) -> dict[str, str]:
    """Every kind of page an owner sees, by name (a member sees the same, some refused)."""
    job = print_job(team, printers_of(team)["virtual-office"]["id"], "every page")
    with team.api() as client:
        hook = {"url": "http://127.0.0.1:9/every", "events": ["printjob.done"]}
        endpoint = client.post("/v1/webhooks", json=hook).json()
        printer = client.get(f"/v1/printers/{job['printerId']}").json()
        code = client.post("/v1/agent/pairing-codes", json={"description": "Every page"}).json()
    return {
        "overview": "/dashboard/overview", "printers": "/dashboard/printers",
        "printer": f"/dashboard/printers/{printer['id']}", "computer": f"/dashboard/computers/{printer['computerId']}",
        "add-computer": "/dashboard/agents/new", "pairing-codes": "/dashboard/agents/pairing-codes",
        "pairing-code": f"/dashboard/agents/pairing-codes/{code['id']}", "print": "/dashboard/print",
        "jobs": "/dashboard/jobs",
        "job": f"/dashboard/jobs/{job['id']}", "confirm": f"/dashboard/jobs/{job['id']}/cancel",
        "webhooks": "/dashboard/webhooks", "webhook": f"/dashboard/webhooks/{endpoint['id']}",
        "deliveries": "/dashboard/webhooks/deliveries", "events": "/dashboard/events", "usage": "/dashboard/usage",
        "members": "/dashboard/members", "keys": "/dashboard/keys", "audit": "/dashboard/audit",
        "settings": "/dashboard/settings", "not-found": "/dashboard/no-such-page",
    }  # fmt: skip


def test_every_page_fits_a_phone_and_passes_axe(team: Team, chromium: Any) -> None:
    phone = Person(chromium, team.stack, "phone", **PHONE)
    try:
        phone.sign_in(team.owner_email)
        pages = _pages(team)
        for name, path in pages.items():
            phone.visit(path, name)
            assert phone.overflow() == 0, f"{path} is wider than a 390 px phone: {phone.too_wide()}"
            phone.shot(name)
        phone.page.set_viewport_size(NARROWEST)
        for path in pages.values():
            phone.page.goto(path)
            assert phone.overflow() == 0, f"{path} is wider than a 360 px phone: {phone.too_wide()}"
        assert phone.problems == []
    finally:
        phone.close()

    violations: dict[str, list[str]] = {}
    for person in (team.owner, team.member):
        for name, path in _pages(team).items():
            person.visit(path, name)
            found = person.axe_violations()
            if found:
                violations[f"{person.who} {path}"] = found
    anonymous = Person(chromium, team.stack, "anonymous")
    try:
        for path in ("/dashboard/sign-in",):
            anonymous.visit(path)
            if found := anonymous.axe_violations():
                violations[path] = found
    finally:
        anonymous.close()
    assert violations == {}


def test_a_session_cookie_is_never_readable_by_scripts(team: Team) -> None:
    cookies = {cookie["name"]: cookie for cookie in team.owner.context.cookies()}
    assert cookies[COOKIE]["httpOnly"] is True and cookies[COOKIE]["sameSite"] == "Lax"
    assert COOKIE not in team.owner.page.evaluate("() => document.cookie")
