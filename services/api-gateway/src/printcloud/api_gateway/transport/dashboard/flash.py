"""A secret shown once: the answer to the form that made it is a redirect, and the page it leads
to reads the secret from a short-lived cookie that only that page receives and that its answer
deletes. A reload then finds nothing, so it neither repeats the secret nor makes a second one.

The cookie is signed with a key derived from the session token: it is worthless to another session,
and the server stores nothing (no key or webhook secret is ever written down in clear).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "printcloud_flash"
# Long enough for a slow redirect, short enough that an unread secret does not linger.
MAX_AGE_SECONDS = 120


def _signature(session_token: str, path: str, body: str) -> str:
    message = f"printcloud-flash\n{path}\n{body}".encode()
    return hmac.new(session_token.encode(), message, hashlib.sha256).hexdigest()


def keep(response: Response, request: Request, session_token: str, path: str, payload: dict[str, Any]) -> None:
    """Sets the cookie that the page at `path` (a full path, e.g. /dashboard/keys/created) reads once."""
    # Unpadded: `=` would make the cookie a quoted string.
    body = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
    response.set_cookie(
        COOKIE,
        f"{body}.{_signature(session_token, path, body)}",
        max_age=MAX_AGE_SECONDS,
        path=path,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def read(request: Request, session_token: str) -> dict[str, Any] | None:
    """What `keep` stored for this page and this session, or None."""
    value = request.cookies.get(COOKIE, "")
    body, _, signature = value.partition(".")
    expected = _signature(session_token, request.url.path, body)
    if not body or not hmac.compare_digest(signature, expected):
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (binascii.Error, ValueError):
        return None
    return payload if isinstance(payload, dict) else None


def forget(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path=request.url.path, httponly=True, samesite="strict")
