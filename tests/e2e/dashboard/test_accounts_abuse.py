"""Sign-in, sessions, roles and keys attacked through the real stack: each gets its clear error and
changes nothing."""

from __future__ import annotations

import asyncio
import re
import uuid

import asyncpg
import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, assert_error, eventually
from tests.e2e.dashboard.accounts import COOKIE, csrf_of, mails_to, request_code, signed_in, verify
from tests.e2e.tenants import create_key, create_org

pytestmark = pytest.mark.e2e


def sql(stack: Stack, statement: str, *args: object) -> None:
    """Moves a clock the way time would (expiry), straight in the gateway schema."""

    async def run() -> None:
        connection = await asyncpg.connect(stack.database_url)
        try:
            await connection.execute(statement, *args)
        finally:
            await connection.close()

    asyncio.run(run())


def new_owner(stack: Stack) -> tuple[str, str]:
    """(organization id, owner address) of a fresh organization."""
    email = f"owner-{uuid.uuid4().hex[:8]}@accounts.test"
    return create_org(stack, f"Org {email}", email), email


def page_error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, (response.status_code, response.text[:500])
    assert f"<strong>{code}</strong>" in response.text, response.text[:2000]
    assert "Traceback" not in response.text
    return response.text


def assert_refused(response: httpx.Response) -> None:
    """The one answer to any code that does not sign in: wrong, expired, used, ended or never sent.
    Back to the code page (post/redirect/get: a reload tries no code again), which says why."""
    assert response.status_code == 303, (response.status_code, response.text[:500])
    assert response.headers["location"] == "/dashboard/sign-in/code?notice=code-refused"
    assert COOKIE not in response.cookies


@pytest.fixture
def client(dashboard_stack: Stack) -> httpx.Client:
    return httpx.Client(base_url=dashboard_stack.api_url, timeout=30.0)


def test_the_answer_is_the_same_for_an_address_without_an_account(dashboard_stack: Stack, client: httpx.Client) -> None:
    _, known = new_owner(dashboard_stack)
    unknown = f"nobody-{uuid.uuid4().hex[:8]}@accounts.test"
    pages = []
    for email in (known, unknown):
        with httpx.Client(base_url=dashboard_stack.api_url) as browser:
            asked = browser.post("/dashboard/sign-in", data={"email": email})
            assert (asked.status_code, asked.headers["location"]) == (303, "/dashboard/sign-in/code")
            pages.append(browser.get("/dashboard/sign-in/code").text)
    assert pages[0].replace(known, "ADDRESS") == pages[1].replace(unknown, "ADDRESS")
    mail = eventually(lambda: mails_to(dashboard_stack, known), timeout=10, what="the known address's code")
    assert mails_to(dashboard_stack, unknown) == []
    # Trying a code tells the addresses apart no better: the same refusal for both.
    wrong = "000000" if "000000" not in mail[-1] else "111111"
    refusals = [verify(client, email, wrong) for email in (known, unknown)]
    for refusal in refusals:
        assert_refused(refusal)
    assert refusals[0].text.replace(known, "ADDRESS") == refusals[1].text.replace(unknown, "ADDRESS")


def test_wrong_codes_end_the_code_after_five_tries(dashboard_stack: Stack, client: httpx.Client) -> None:
    _, email = new_owner(dashboard_stack)
    code = request_code(client, dashboard_stack, email)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(5):
        assert_refused(verify(client, email, wrong))
    # The right code no longer works after the fifth wrong try.
    assert_refused(verify(client, email, code))
    assert COOKIE not in client.cookies


def test_an_expired_code_is_refused(dashboard_stack: Stack, client: httpx.Client) -> None:
    _, email = new_owner(dashboard_stack)
    code = request_code(client, dashboard_stack, email)
    sql(
        dashboard_stack,
        "UPDATE gateway.sign_in_codes SET expires_at = now() - interval '1 second' WHERE email = $1",
        email,
    )
    assert_refused(verify(client, email, code))
    assert COOKIE not in client.cookies


def test_a_code_works_once(dashboard_stack: Stack, client: httpx.Client) -> None:
    _, email = new_owner(dashboard_stack)
    code = request_code(client, dashboard_stack, email)
    assert verify(client, email, code).status_code == 303
    with httpx.Client(base_url=dashboard_stack.api_url) as other:
        assert_refused(verify(other, email, code))
        assert COOKIE not in other.cookies


def test_a_code_only_works_for_its_own_address(dashboard_stack: Stack, client: httpx.Client) -> None:
    (_, first), (_, second) = new_owner(dashboard_stack), new_owner(dashboard_stack)
    first_code = request_code(client, dashboard_stack, first)
    second_code = request_code(client, dashboard_stack, second)
    if first_code != second_code:  # one chance in a million that they are equal
        assert_refused(verify(client, second, first_code))
        assert COOKIE not in client.cookies
    # The first address's code is untouched by the attempt.
    assert verify(client, first, first_code).status_code == 303


def test_code_requests_are_rate_limited_per_address(dashboard_stack: Stack, client: httpx.Client) -> None:
    _, email = new_owner(dashboard_stack)
    for _ in range(5):
        assert client.post("/dashboard/sign-in", data={"email": email}).status_code == 303
    eventually(lambda: len(mails_to(dashboard_stack, email)) == 5, timeout=10, what="five codes")
    refused = client.post("/dashboard/sign-in", data={"email": email})
    assert refused.status_code == 429 and "Too many sign-in codes were asked for" in refused.text
    assert len(mails_to(dashboard_stack, email)) == 5


def test_forged_expired_and_revoked_sessions_are_refused(dashboard_stack: Stack) -> None:
    _, email = new_owner(dashboard_stack)
    base = dashboard_stack.api_url
    with httpx.Client(base_url=base, cookies={COOKIE: "f" * 43}) as forged:
        assert_error(forged.get("/v1/printers"), 401, "unauthorized")
        assert forged.get("/dashboard/overview").headers["location"].startswith("/dashboard/sign-in")

    for column in ("expires_at", "last_seen_at"):
        session = signed_in(dashboard_stack, email)
        assert session.get("/v1/whoami").status_code == 200
        # Past the absolute lifetime, then past the idle lifetime (12 hours).
        moved = f"UPDATE gateway.sessions SET {column} = now() - interval '13 hours'"
        sql(dashboard_stack, moved + " WHERE user_id = (SELECT id FROM gateway.users WHERE email = $1)", email)
        assert_error(session.get("/v1/whoami"), 401, "unauthorized")

    session = signed_in(dashboard_stack, email)
    token = session.cookies[COOKIE]
    signed_out = session.post("/dashboard/sign-out", data={"csrf_token": csrf_of(session)})
    assert signed_out.status_code == 303
    with httpx.Client(base_url=base, cookies={COOKIE: token}) as replay:
        assert_error(replay.get("/v1/whoami"), 401, "unauthorized")


def test_cross_site_form_posts_are_refused(dashboard_stack: Stack) -> None:
    _, email = new_owner(dashboard_stack)
    session = signed_in(dashboard_stack, email)
    csrf = csrf_of(session)
    victim = f"victim-{uuid.uuid4().hex[:6]}@accounts.test"
    evil = {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}
    invitation = {"email": victim, "role": "owner"}
    page_error(
        session.post("/dashboard/members/invite", data={**invitation, "csrf_token": csrf}, headers=evil),
        403,
        "forbidden",
    )
    page_error(session.post("/dashboard/members/invite", data=invitation), 403, "forbidden")
    # The API with a session cookie but without the CSRF header.
    hook = {"url": "http://127.0.0.1:9/x", "events": ["printjob.done"]}
    assert_error(session.post("/v1/webhooks", json=hook), 403, "forbidden")
    assert victim not in session.get("/dashboard/members").text
    assert session.get("/v1/webhooks").json()["data"] == []


@pytest.fixture(scope="module")
def team(dashboard_stack: Stack) -> dict[str, object]:
    """An organization with an owner and a member who accepted the invitation by signing in."""
    org_id, owner_email = new_owner(dashboard_stack)
    owner = signed_in(dashboard_stack, owner_email)
    member_email = f"member-{uuid.uuid4().hex[:6]}@accounts.test"
    invited = owner.post(
        "/dashboard/members/invite", data={"email": member_email, "role": "member", "csrf_token": csrf_of(owner)}
    )
    assert invited.status_code == 303, invited.text
    member = signed_in(dashboard_stack, member_email)
    return {"org_id": org_id, "owner": owner, "member": member}


def _printer(client: httpx.Client) -> dict:
    return eventually(
        lambda: next((p for p in client.get("/v1/printers").json()["data"] if p["state"] == "online"), None),
        timeout=60,
        what="an online virtual printer",
    )


def test_a_member_reads_and_prints_but_cannot_act_as_an_owner(team: dict) -> None:
    member: httpx.Client = team["member"]
    headers = {"X-CSRF-Token": csrf_of(member)}
    assert member.get("/v1/whoami").json()["user"]["role"] == "member"
    printer = _printer(member)
    job = member.post(
        "/v1/printjobs",
        json={"printerId": printer["id"], "title": "by a member", "contentType": "pdf_base64", "content": PDF_BASE64},
        headers=headers,
    )
    assert job.status_code == 201, job.text
    refused = [
        # The spec's cancel endpoint: "A dashboard user with the member role gets 403".
        member.post(f"/v1/printjobs/{job.json()['id']}/cancel", headers=headers),
        member.patch(f"/v1/printers/{printer['id']}", json={"displayName": "mine"}, headers=headers),
        member.post("/v1/webhooks", json={"url": "http://127.0.0.1:9/x", "events": ["printjob.done"]}, headers=headers),
        member.post("/v1/agent/enroll", json={"hostname": "sneaky"}, headers=headers),
    ]
    for answer in refused:
        assert_error(answer, 403, "forbidden")
    assert member.get(f"/v1/printers/{printer['id']}").json()["displayName"] == printer["displayName"]
    assert member.get("/v1/webhooks").json()["data"] == []
    page_error(member.get("/dashboard/keys"), 403, "forbidden")
    csrf = headers["X-CSRF-Token"]
    new_key = {"name": "k", "mode": "test", "scopes": "read", "csrf_token": csrf}
    page_error(member.post("/dashboard/keys", data=new_key), 403, "forbidden")
    invitation = {"email": "x@accounts.test", "role": "owner", "csrf_token": csrf}
    page_error(member.post("/dashboard/members/invite", data=invitation), 403, "forbidden")
    assert "x@accounts.test" not in member.get("/dashboard/members").text


def test_a_session_of_one_organization_sees_nothing_of_another(dashboard_stack: Stack, team: dict) -> None:
    other_org = create_org(dashboard_stack, "Elsewhere", f"owner-{uuid.uuid4().hex[:6]}@elsewhere.test")
    with api(dashboard_stack.api_url, create_key(dashboard_stack, other_org, "test", "read,print")) as other:
        printer = _printer(other)
        job = other.post(
            "/v1/printjobs",
            json={"printerId": printer["id"], "title": "theirs", "contentType": "pdf_base64", "content": PDF_BASE64},
        ).json()
    owner: httpx.Client = team["owner"]
    assert_error(owner.get(f"/v1/printers/{printer['id']}"), 404, "not_found")
    assert_error(owner.get(f"/v1/printjobs/{job['id']}"), 404, "not_found")
    page_error(owner.get(f"/dashboard/jobs/{job['id']}"), 404, "not_found")
    switch = {"organization_id": other_org, "mode": "test", "csrf_token": csrf_of(owner)}
    page_error(owner.post("/dashboard/switch", data=switch), 404, "not_found")
    assert owner.get("/v1/whoami").json()["organization"]["id"] == team["org_id"]


def test_api_keys_are_shown_once_listed_by_prefix_and_revoked_at_once(dashboard_stack: Stack, team: dict) -> None:
    owner: httpx.Client = team["owner"]
    created = owner.post(
        "/dashboard/keys",
        data={"name": "Shop", "mode": "test", "scopes": ["read", "print"], "csrf_token": csrf_of(owner)},
    )
    assert created.status_code == 303 and created.headers["location"] == "/dashboard/keys/created", created.text
    shown = owner.get("/dashboard/keys/created").text
    secret = re.search(r'value="(svc_test_[^"]+)"', shown).group(1)  # type: ignore[union-attr]
    assert secret not in owner.get("/dashboard/keys/created").text, "shown once"
    listing = owner.get("/dashboard/keys").text
    assert secret not in listing
    assert f"{secret[:12]}…{secret[-4:]}" in listing and "Shop" in listing
    with api(dashboard_stack.api_url, secret) as key:
        assert key.get("/v1/printers").status_code == 200
        # The team may hold other keys: the revoke link is the one in this key's row, after its prefix.
        row = listing[listing.index(f"{secret[:12]}…") :]
        key_id = re.search(r"/dashboard/keys/([0-9a-f-]{36})/revoke", row).group(1)  # type: ignore[union-attr]
        revoked = owner.post(f"/dashboard/keys/{key_id}/revoke", data={"csrf_token": csrf_of(owner)})
        assert revoked.status_code == 303
        # No cache anywhere: the very next request is refused.
        assert_error(key.get("/v1/printers"), 401, "unauthorized")
    assert secret[:12] not in owner.get("/dashboard/keys").text
