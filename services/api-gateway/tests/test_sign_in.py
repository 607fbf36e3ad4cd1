"""Sign-in against a real PostgreSQL and a real SMTP server (the dev stack's sink): the policies a
whole stack does not exercise (open sign-up, per-client limits, cookie attributes, switching)."""

from __future__ import annotations

import asyncio
import itertools
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from printcloud.api_gateway.persistence.repository import AccountsRepository
from printcloud.api_gateway.persistence.tables import memberships, outbox, sign_in_requests, users
from printcloud.api_gateway.settings import DashboardSettings
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.core.db import Database
from printcloud.core.timeutil import utcnow
from printcloud.devstack.ports import free_port
from printcloud.devstack.smtp_sink import SmtpSink

_CODE = re.compile(r"sign-in code is (\d{6})")
_CLIENTS = itertools.count(1)


@pytest.fixture(scope="module")
def sink() -> Iterator[SmtpSink]:
    server = SmtpSink(free_port())
    server.start()
    yield server
    server.stop()


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


async def _code(sink: SmtpSink, email: str) -> str:
    for _ in range(200):
        mails = [m for m in sink.received() if m["To"] == email]
        if mails:
            body = mails[-1].get_payload(decode=True)
            assert isinstance(body, bytes)
            found = _CODE.search(body.decode())
            assert found
            return found.group(1)
        await asyncio.sleep(0.05)
    raise AssertionError(f"no code e-mailed to {email}")


def _address() -> str:
    return f"new-{uuid.uuid4().hex[:8]}@signup.test"


async def test_open_sign_up_creates_an_organization_the_new_user_owns(
    open_gateway: httpx.AsyncClient, sink: SmtpSink, db: Database
) -> None:
    email = _address()
    asked = await open_gateway.post("/dashboard/sign-in", data={"email": email})
    # Post/redirect/get: a reload of the code page asks for no second code.
    assert asked.status_code == 303 and asked.headers["location"] == "/dashboard/sign-in/code"
    answer = await open_gateway.post("/dashboard/verify", data={"email": email, "code": await _code(sink, email)})
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
    deps: GatewayDeps, accounts: AccountsRepository, sink: SmtpSink
) -> None:
    email = _address()
    await accounts.create_organization("Switchers", email)
    app = _app(deps, sink)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as client:
        await client.post("/dashboard/sign-in", data={"email": email})
        answer = await client.post("/dashboard/verify", data={"email": email, "code": await _code(sink, email)})
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
    deps: GatewayDeps, accounts: AccountsRepository, sink: SmtpSink
) -> None:
    email = _address()
    await accounts.create_organization("Counted", email)
    transport = httpx.ASGITransport(app=_app(deps, sink), client=(f"10.0.0.{next(_CLIENTS)}", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as client:
        await client.post("/dashboard/sign-in", data={"email": email})
        await client.post("/dashboard/verify", data={"email": email, "code": await _code(sink, email)})
        counted = await client.get("/v1/whoami")
        assert counted.status_code == 200 and "ratelimit-remaining" in counted.headers
        client.cookies.set("printcloud_session", "x" * 43)
        refused = await client.get("/v1/whoami")
        assert refused.status_code == 401 and "ratelimit-remaining" in refused.headers
