"""Sign-in against a real PostgreSQL and a real SMTP server (the dev stack's sink): the policies a
whole stack does not exercise (open sign-up, per-client limits, cookie attributes, switching)."""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from printcloud.api_gateway.persistence.tables import invitations, memberships, outbox, sign_in_requests, users
from printcloud.api_gateway.settings import DashboardSettings
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devstack.smtp_sink import SmtpSink
from tests.support.sign_in_mail import mailed_code, mails_to, text_of

_CLIENTS = itertools.count(1)


def _app(deps: GatewayDeps, sink: SmtpSink, **settings: Any) -> FastAPI:
    """The gateway app of the shared fakes, with its own settings (a new SignIn built from them)."""
    return create_app(
        replace(deps, dashboard=DashboardSettings(smtp_host="127.0.0.1", smtp_port=sink.port, **settings))
    )


@pytest.fixture
async def open_gateway(deps: GatewayDeps, sink: SmtpSink) -> AsyncIterator[httpx.AsyncClient]:
    app = _app(deps, sink, signup="open", sign_in_requests_per_client=3)
    # A client address of its own, so that no other test's requests count against the limit.
    transport = httpx.ASGITransport(app=app, client=(f"10.0.0.{next(_CLIENTS)}", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="https://gateway.test") as client:
        yield client


def _address() -> str:
    return f"new-{uuid.uuid4().hex[:8]}@signup.test"


async def test_open_sign_up_creates_an_organization_the_new_user_owns(
    open_gateway: httpx.AsyncClient, sink: SmtpSink, db: Database
) -> None:
    email = _address()
    asked = await open_gateway.post("/dashboard/sign-in", data={"email": email})
    # Post/redirect/get: a reload of the code page asks for no second code.
    assert asked.status_code == 303 and asked.headers["location"] == "/dashboard/sign-in/code"
    answer = await open_gateway.post("/dashboard/verify", data={"email": email, "code": await mailed_code(sink, email)})
    assert answer.status_code == 303 and answer.headers["location"] == "/dashboard/overview"
    cookie = answer.headers["set-cookie"].lower()
    assert all(part in cookie for part in ("httponly", "samesite=lax", "secure", "path=/"))
    whoami = (await open_gateway.get("/v1/whoami")).json()
    assert whoami["user"] == {"id": whoami["user"]["id"], "email": email, "role": "owner"}
    assert whoami["apiKeyId"] is None and whoami["mode"] == "test"
    async with db.read() as session:
        user_id = await session.scalar(select(users.c.id).where(users.c.email == email))
        roles = (await session.execute(select(memberships.c.role).where(memberships.c.user_id == user_id))).scalars()
        assert list(roles) == ["owner"]
        announced = await session.scalar(
            select(outbox.table.c.key).where(outbox.table.c.key == whoami["organization"]["id"])
        )
    assert announced == whoami["organization"]["id"]


async def test_code_requests_are_rate_limited_per_client_address(open_gateway: httpx.AsyncClient) -> None:
    # The fixture allows 3 requests per client address.
    answers = [await open_gateway.post("/dashboard/sign-in", data={"email": _address()}) for _ in range(4)]
    assert [a.status_code for a in answers] == [303, 303, 303, 429]
    assert "Too many sign-in codes were asked for" in answers[-1].text


async def test_the_session_switches_mode_and_the_cookie_is_not_secure_over_http(
    deps: GatewayDeps, accounts: Accounts, sink: SmtpSink
) -> None:
    email = _address()
    await accounts.create_organization("Switchers", email)
    app = _app(deps, sink)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as client:
        await client.post("/dashboard/sign-in", data={"email": email})
        answer = await client.post("/dashboard/verify", data={"email": email, "code": await mailed_code(sink, email)})
        assert "secure" not in answer.headers["set-cookie"].lower()
        whoami = (await client.get("/v1/whoami")).json()
        csrf = re.search(r'name="csrf_token" value="([0-9a-f]+)"', (await client.get("/dashboard/overview")).text)
        assert csrf
        switched = await client.post(
            "/dashboard/switch",
            data={"organization_id": whoami["organization"]["id"], "mode": "live", "csrf_token": csrf.group(1)},
        )
        assert switched.status_code == 303
        assert (await client.get("/v1/whoami")).json()["mode"] == "live"


async def test_purge_drops_only_what_can_no_longer_matter(deps: GatewayDeps, db: Database) -> None:
    old, recent = f"email:old-{uuid.uuid4().hex}", f"email:recent-{uuid.uuid4().hex}"
    async with db.transaction() as session:
        await session.execute(sign_in_requests.insert().values(subject=old, requested_at=utcnow() - timedelta(days=2)))
        await session.execute(sign_in_requests.insert().values(subject=recent))
    await deps.sign_in.purge()
    async with db.read() as session:
        left = await session.scalars(
            select(sign_in_requests.c.subject).where(sign_in_requests.c.subject.in_([old, recent]))
        )
        assert list(left) == [recent]


async def test_sign_in_forms_are_read_within_bounds(open_gateway: httpx.AsyncClient) -> None:
    huge = await open_gateway.post("/dashboard/sign-in", data={"email": "a@b.test", "pad": "x" * 100_000})
    assert huge.status_code == 413 and "content_too_large" in huge.text
    as_json = await open_gateway.post("/dashboard/sign-in", json={"email": "a@b.test"})
    assert as_json.status_code == 400 and "invalid_request" in as_json.text
    nul = await open_gateway.post("/dashboard/sign-in", data={"email": "a\x00@b.test"})
    assert nul.status_code == 400 and "`email` must not contain NUL" in nul.text
    assert "Traceback" not in huge.text + as_json.text + nul.text


async def test_session_requests_count_against_the_rate_limit(
    deps: GatewayDeps, accounts: Accounts, sink: SmtpSink
) -> None:
    email = _address()
    await accounts.create_organization("Counted", email)
    transport = httpx.ASGITransport(app=_app(deps, sink), client=(f"10.0.0.{next(_CLIENTS)}", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
        await client.post("/dashboard/sign-in", data={"email": email})
        await client.post("/dashboard/verify", data={"email": email, "code": await mailed_code(sink, email)})
        counted = await client.get("/v1/whoami")
        assert counted.status_code == 200 and "ratelimit-remaining" in counted.headers
        client.cookies.set("printcloud_session", "x" * 43)
        refused = await client.get("/v1/whoami")
        assert refused.status_code == 401 and "ratelimit-remaining" in refused.headers


# --- One plain mailbox: the address the code goes to is the one typed, and only that one ---

NOT_ONE_MAILBOX = [
    "Name <other@example.com>",
    "Name<other@example.com>",
    "<other@example.com>",
    "a,b@example.com",
    "a@example.com,b@example.com",
    "a@example.com;b@example.com",
    '"<svg/onload=alert(1)>"@example.com',
    "a(comment)@example.com",
    "a b@example.com",
    "a@example.com\r\nBcc: other@example.com",
    "user%other.example.com@example.com",
]


async def _no_mail_but_the_controls(open_gateway: httpx.AsyncClient, sink: SmtpSink, *strangers: str) -> None:
    """Waits for a control address's code, then checks nobody else got one: a refusal sends nothing,
    and mails are sent in the order their requests were answered."""
    control = _address()
    assert (await open_gateway.post("/dashboard/sign-in", data={"email": control})).status_code == 303
    await mailed_code(sink, control)
    recipients = " ".join(str(mail["To"]) for mail in sink.received())
    for stranger in strangers:
        assert stranger not in recipients


@pytest.mark.parametrize("typed", NOT_ONE_MAILBOX)
async def test_sign_in_and_sign_up_take_one_plain_mailbox_and_mail_nobody_else(
    open_gateway: httpx.AsyncClient, sink: SmtpSink, typed: str
) -> None:
    asked = await open_gateway.post("/dashboard/sign-in", data={"email": typed})
    # The form comes back with the reason beside the field.
    assert asked.status_code == 400
    assert "Enter one plain e-mail address" in asked.text or "domain name" in asked.text
    verified = await open_gateway.post("/dashboard/verify", data={"email": typed, "code": "123456"})
    assert verified.status_code == 400
    assert "Enter one plain e-mail address" in verified.text or "domain name" in verified.text
    await _no_mail_but_the_controls(open_gateway, sink, "other@example.com", "b@example.com")


async def test_an_existing_account_signs_in_however_its_address_is_typed(
    deps: GatewayDeps, accounts: Accounts, sink: SmtpSink
) -> None:
    stored = f"o'brien+print.{uuid.uuid4().hex[:6]}@sub.example.test"
    await accounts.create_organization("Kept", stored)
    transport = httpx.ASGITransport(app=_app(deps, sink), client=(f"10.0.0.{next(_CLIENTS)}", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
        typed = f"  {stored.upper()} "
        assert (await client.post("/dashboard/sign-in", data={"email": typed})).status_code == 303
        answer = await client.post("/dashboard/verify", data={"email": typed, "code": await mailed_code(sink, stored)})
        assert answer.status_code == 303
        assert (await client.get("/v1/whoami")).json()["user"]["email"] == stored


async def test_an_invitation_takes_one_plain_mailbox(
    open_gateway: httpx.AsyncClient, sink: SmtpSink, db: Database
) -> None:
    owner = _address()
    await open_gateway.post("/dashboard/sign-in", data={"email": owner})
    await open_gateway.post("/dashboard/verify", data={"email": owner, "code": await mailed_code(sink, owner)})
    organization_id = (await open_gateway.get("/v1/whoami")).json()["organization"]["id"]
    csrf = re.search(r'name="csrf_token" value="([0-9a-f]+)"', (await open_gateway.get("/dashboard/members")).text)
    assert csrf
    for typed in ('"<svg/onload=alert(1)>"@example.com', "Name <other@example.com>", "a,b@example.com"):
        refused = await open_gateway.post(
            "/dashboard/members/invite", data={"email": typed, "role": "member", "csrf_token": csrf.group(1)}
        )
        assert refused.status_code == 400 and "Enter one plain e-mail address" in refused.text
        assert "<svg" not in refused.text
    invited = await open_gateway.post(
        "/dashboard/members/invite",
        data={"email": " Invitee@Example.COM ", "role": "member", "csrf_token": csrf.group(1)},
    )
    assert invited.status_code == 303
    async with db.read() as session:
        stored = await session.scalars(
            select(invitations.c.email).where(invitations.c.organization_id == uuid.UUID(organization_id))
        )
        assert list(stored) == ["invitee@example.com"]


async def test_the_code_e_mail_names_the_configured_sign_in_page_not_the_host_asked(
    deps: GatewayDeps, sink: SmtpSink
) -> None:
    email = _address()
    app = _app(deps, sink, signup="open", public_url="https://print.example.test/")
    transport = httpx.ASGITransport(app=app, client=(f"10.0.0.{next(_CLIENTS)}", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://evil.invalid") as client:
        await client.post("/dashboard/sign-in", data={"email": email})
    await mailed_code(sink, email)
    body = text_of(mails_to(sink, email)[-1])
    assert "Enter it on the sign-in page, https://print.example.test/dashboard/sign-in, and nowhere else." in body
    assert "evil" not in body
