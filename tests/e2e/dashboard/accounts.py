"""Signing in to the dashboard as a person would, over HTTP: the code comes from the stack's SMTP sink."""

from __future__ import annotations

import re

import httpx

from printcloud.devstack.stack import Stack
from tests.e2e.client import eventually

COOKIE = "printcloud_session"
_CODE = re.compile(r"sign-in code is (\d{6})")
_CSRF = re.compile(r'name="csrf_token" value="([0-9a-f]+)"')


def mails_to(stack: Stack, email: str) -> list[str]:
    """The bodies of the e-mails the sink received for `email`, oldest first."""
    assert stack.smtp_sink is not None
    return [str(m.get_payload(decode=True).decode()) for m in stack.smtp_sink.received() if m["To"] == email]


def request_code(client: httpx.Client, stack: Stack, email: str) -> str:
    """Asks for a code and returns it once its e-mail arrived."""
    before = len(mails_to(stack, email))
    answer = client.post("/dashboard/sign-in", data={"email": email})
    assert answer.status_code == 303, answer.text
    body = eventually(lambda: mails_to(stack, email)[before:], timeout=10, what=f"a sign-in e-mail to {email}")
    found = _CODE.search(body[-1])
    assert found, body[-1]
    return found.group(1)


def verify(client: httpx.Client, email: str, code: str) -> httpx.Response:
    return client.post("/dashboard/verify", data={"email": email, "code": code})


def signed_in(stack: Stack, email: str) -> httpx.Client:
    """A client holding a fresh session cookie of `email`."""
    client = httpx.Client(base_url=stack.api_url, timeout=30.0)
    answer = verify(client, email, request_code(client, stack, email))
    assert answer.status_code == 303, answer.text
    assert client.cookies.get(COOKIE)
    return client


def csrf_of(client: httpx.Client, page: str = "/dashboard/overview") -> str:
    found = _CSRF.search(client.get(page).text)
    assert found, "no CSRF token on the page"
    return found.group(1)
