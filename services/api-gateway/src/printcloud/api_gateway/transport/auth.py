"""Authentication (API key from Bearer or Basic) and scope checks, as FastAPI dependencies."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from starlette.requests import Request

from printcloud.api_gateway.domain.api_keys import hash_api_key, is_well_formed
from printcloud.api_gateway.domain.identity import ApiKeyIdentity
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.rate_limit import charge, client_principal, key_principal
from printcloud.core.errors import ApiError


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


async def authenticate(request: Request) -> ApiKeyIdentity:
    key = presented_key(request.headers.get("authorization"))
    if key is None:
        await charge(request, client_principal(request.scope))
        raise ApiError("unauthorized", "Send an API key as `Authorization: Bearer <key>` or as the Basic user name.")
    deps: GatewayDeps = request.app.state.deps
    identity = await deps.accounts.identify(hash_api_key(key)) if is_well_formed(key) else None
    if identity is None:
        await charge(request, client_principal(request.scope))
        raise ApiError("unauthorized", "The API key is invalid or has been revoked.")
    await charge(request, key_principal(identity.api_key_id))
    return identity


def require_scope(scope: str) -> Callable[[ApiKeyIdentity], Awaitable[ApiKeyIdentity]]:
    async def check(identity: Annotated[ApiKeyIdentity, Depends(authenticate)]) -> ApiKeyIdentity:
        if not identity.has_scope(scope):
            raise ApiError("insufficient_scope", f"This API key lacks the `{scope}` scope.")
        return identity

    return check


AnyKey = Annotated[ApiKeyIdentity, Depends(authenticate)]
ReadKey = Annotated[ApiKeyIdentity, Depends(require_scope("read"))]
PrintKey = Annotated[ApiKeyIdentity, Depends(require_scope("print"))]
AdminKey = Annotated[ApiKeyIdentity, Depends(require_scope("admin"))]
