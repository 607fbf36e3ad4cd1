"""The dashboard as a team lives in it, in Debian's Chromium under the production Content-Security-
Policy: an owner and a member (a browser context each), the bugs found by trying it, pages that
follow state by themselves, confirmations, a phone's width, and every page checked by axe-core.
Screenshots go to .dev/screenshots/dashboard; each page's load time is printed at the end."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, api, eventually
from tests.e2e.dashboard.accounts import csrf_of, signed_in
from tests.e2e.dashboard.browser import LOAD_TIMES, SCREENSHOTS, Person
from tests.e2e.tenants import create_key, create_org

pytestmark = pytest.mark.e2e


@dataclass
class Team:
    org_id: str
    owner_email: str
    member_email: str
    key: str  # a test key of every scope, for setting things up behind the browser's back
    owner: Person
    member: Person

    def api(self) -> httpx.Client:
        return api(self.owner.stack.api_url, self.key)


@pytest.fixture(scope="module")
def team(dashboard_stack: Stack, chromium: Any) -> Iterator[Team]:
    suffix = uuid.uuid4().hex[:6]
    owner_email, member_email = f"owner-{suffix}@browser.test", f"member-{suffix}@browser.test"
    org_id = create_org(dashboard_stack, "Browser Labs", owner_email)
    inviter = signed_in(dashboard_stack, owner_email)
    invited = inviter.post(
        "/dashboard/members/invite", data={"email": member_email, "role": "member", "csrf_token": csrf_of(inviter)}
    )
    assert invited.status_code == 303, invited.text[:500]
    inviter.close()
    owner, member = Person(chromium, dashboard_stack, "owner"), Person(chromium, dashboard_stack, "member")
    owner.sign_in(owner_email)
    member.sign_in(member_email)
    key = create_key(dashboard_stack, org_id, "test", "read,print,admin")
    yield Team(org_id, owner_email, member_email, key, owner, member)
    owner.close()
    member.close()
    if LOAD_TIMES:
        print(f"\nscreenshots: {SCREENSHOTS}\npage load times (navigation start to load event):")
        for name, ms in sorted(LOAD_TIMES.items(), key=lambda item: -item[1]):
            print(f"  {ms:7.1f} ms  {name}")


def printers_of(team: Team) -> dict[str, dict[str, Any]]:
    """The virtual printers by name, once all four are online."""
    with team.api() as client:

        def online() -> dict[str, dict[str, Any]] | None:
            printers = client.get("/v1/printers").json()["data"]
            if len(printers) == 4 and all(p["state"] == "online" for p in printers):
                return {p["name"]: p for p in printers}
            return None

        return eventually(online, timeout=60, what="four online virtual printers")


def print_job(team: Team, printer: str, title: str, **extra: Any) -> dict[str, Any]:
    from tests.e2e.client import PDF_BASE64

    body = {"printerId": printer, "title": title, "contentType": "pdf_base64", "content": PDF_BASE64, **extra}
    with team.api() as client:
        created = client.post("/v1/printjobs", json=body)
    assert created.status_code == 201, created.text
    job: dict[str, Any] = created.json()
    return job


def test_every_owner_page_renders(team: Team) -> None:
    office = printers_of(team)["virtual-office"]
    job = print_job(team, office["id"], "smoke")
    owner = team.owner
    for path in (
        "/dashboard/overview", "/dashboard/printers", f"/dashboard/printers/{office['id']}",
        f"/dashboard/computers/{office['computerId']}", "/dashboard/agents/new", "/dashboard/print",
        "/dashboard/jobs", f"/dashboard/jobs/{job['id']}", "/dashboard/webhooks", "/dashboard/webhooks/deliveries",
        "/dashboard/events", "/dashboard/usage", "/dashboard/members", "/dashboard/keys", "/dashboard/audit",
        "/dashboard/settings",
    ):  # fmt: skip
        response = owner.visit(path)
        assert response.status == 200, (path, owner.page.content()[:3000])
        owner.shot(path.split("/")[2])
    assert owner.problems == []
    _ = MINIMAL_PDF
