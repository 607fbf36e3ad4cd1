from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from printcloud.api_gateway.domain.identity import ApiKeyIdentity, SessionIdentity
from printcloud.api_gateway.transport.auth import AnyKey
from printcloud.api_gateway.transport.openapi import documented
from printcloud.api_gateway.transport.schemas import NoQuery
from printcloud.contracts.enums import Mode, Role
from printcloud.contracts.resources import Organization, SessionUser, Whoami

router = APIRouter(prefix="/v1", tags=["account"])


@router.get("/whoami", **documented(200, Whoami))
async def whoami(identity: AnyKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Who am I: the key's organization and mode

    The organization, mode and plan of the key (or dashboard session) that sent the request. A quick
    way to check that a key works and which mode it is for.

    Scope: any (`read`, `print` or `admin`).

    Errors: `401 unauthorized` for a missing, unknown or revoked key.

    Example: `GET /v1/whoami` answers

    ```json
    {"apiKeyId": "…", "mode": "test", "organization": {"id": "…", "name": "Acme"}, "plan": "free"}
    ```
    """
    shown = Whoami(
        apiKeyId=identity.api_key_id if isinstance(identity, ApiKeyIdentity) else None,
        mode=Mode(identity.mode),
        organization=Organization(id=identity.organization_id, name=identity.organization_name),
        plan=identity.plan,
    )
    if isinstance(identity, SessionIdentity):
        shown.user = SessionUser(id=identity.user_id, email=identity.email, role=Role(identity.role))
    # `user` is left out, not null, for a key.
    return shown.model_dump(exclude_unset=True)
