"""Authentication (API key from Bearer or Basic, or a dashboard session) and the scope or role
check, as FastAPI dependencies. Both credentials produce an `Identity`."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from starlette.requests import Request

from printcloud.api_gateway.domain.api_keys import hash_api_key, is_well_formed
from printcloud.api_gateway.domain.identity import Identity, SessionIdentity
from printcloud.api_gateway.domain.roles import CANCEL
from printcloud.api_gateway.domain.sessions import COOKIE_NAME
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.rate_limit import charge, client_principal, key_principal
from printcloud.api_gateway.transport.session_auth import SESSION_ENDED, check_csrf
from printcloud.contracts.errors import ApiError
from printcloud.core.http.authorization_header import authorization as single_authorization


def presented_key(authorization: str | None) -> str | None:
    """The API key in an Authorization header: `Bearer <key>`, or Basic with the key as user and no password."""
    if not authorization:
        return None
    scheme, _, credentials = authorization.strip().partition(" ")
    credentials = credentials.strip()
    if scheme.lower() == "bearer":
        return credentials or None
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(credentials, validate=True).decode()
        except (binascii.Error, ValueError):
            return None
        user, colon, password = decoded.partition(":")
        if not colon or password:
            return None
        return user or None
    return None


async def authenticate(request: Request) -> Identity:
    """The caller behind an API key or, without an Authorization header, a dashboard session cookie.
    With both, the key decides and the cookie is ignored; two Authorization headers are a 400."""
    deps: GatewayDeps = request.app.state.deps
    try:
        authorization = single_authorization(request.headers)
    except ApiError:
        await charge(request, client_principal(request.scope))
        raise
    token = request.cookies.get(COOKIE_NAME)
    if not authorization and token:
        session = await deps.sign_in.identify(token)
        if session is None:
            await charge(request, client_principal(request.scope))
            raise ApiError("unauthorized", SESSION_ENDED)
        await charge(request, session.principal)
        check_csrf(request, token)
        return session
    key = presented_key(authorization)
    if key is None:
        await charge(request, client_principal(request.scope))
        raise ApiError(
            "unauthorized",
            "Send an API key as `Authorization: Bearer <key>` or as the Basic user name, or sign in to the dashboard.",
        )
    identity = (
        await deps.verified_keys.identify(hash_api_key(key), deps.accounts.identify) if is_well_formed(key) else None
    )
    if identity is None:
        await charge(request, client_principal(request.scope))
        raise ApiError("unauthorized", "The API key is invalid or has been revoked.")
    await charge(request, key_principal(identity.api_key_id))
    return identity


def require_scope(scope: str, *, role_action: str | None = None) -> Callable[[Request], Awaitable[Identity]]:
    """`scope` for keys and sessions alike; `role_action`, when given, also for sessions only."""

    # Authenticates itself rather than depending on `authenticate`: every dependency FastAPI
    # solves costs a walk over the request's parameters, and no route needs both.
    async def check(request: Request) -> Identity:
        identity = await authenticate(request)
        identity.authorize(scope)
        if role_action is not None and isinstance(identity, SessionIdentity):
            identity.authorize(role_action)
        return identity

    return check


# Named for keys, the usual callers; a session passes the same checks through its role.
AnyKey = Annotated[Identity, Depends(authenticate)]
ReadKey = Annotated[Identity, Depends(require_scope("read"))]
PrintKey = Annotated[Identity, Depends(require_scope("print"))]
AdminKey = Annotated[Identity, Depends(require_scope("admin"))]
CancelKey = Annotated[Identity, Depends(require_scope("print", role_action=CANCEL))]
