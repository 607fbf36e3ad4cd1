from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from printcloud.api_gateway.domain.identity import ApiKeyIdentity, SessionIdentity
from printcloud.api_gateway.transport.auth import AnyKey
from printcloud.api_gateway.transport.openapi import documented
from printcloud.api_gateway.transport.responses import Whoami
from printcloud.api_gateway.transport.schemas import NoQuery

router = APIRouter(prefix="/v1", tags=["account"])


@router.get("/whoami", **documented(200, Whoami))
async def whoami(identity: AnyKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "apiKeyId": identity.api_key_id if isinstance(identity, ApiKeyIdentity) else None,
        "mode": identity.mode,
        "organization": {"id": identity.organization_id, "name": identity.organization_name},
        "plan": identity.plan,
    }
    if isinstance(identity, SessionIdentity):
        shown["user"] = {"id": identity.user_id, "email": identity.email, "role": identity.role}
    return shown
