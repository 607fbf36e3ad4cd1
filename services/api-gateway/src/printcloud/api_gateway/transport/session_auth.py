"""A dashboard session as an API credential: what a refused one is told, and the CSRF token that
requests other than reads must carry."""

from __future__ import annotations

from starlette.requests import Request

from printcloud.api_gateway.domain.sessions import CSRF_HEADER, csrf_matches
from printcloud.contracts.errors import ApiError

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSION_ENDED = "Your session has expired or was signed out. Sign in again."


def check_csrf(request: Request, token: str) -> None:
    # SameSite=Lax already keeps the cookie off cross-site POSTs; the token also stops same-site ones.
    if request.method not in SAFE_METHODS and not csrf_matches(token, request.headers.get(CSRF_HEADER)):
        raise ApiError("forbidden", f"A request made with a session must carry the `{CSRF_HEADER}` header.")
