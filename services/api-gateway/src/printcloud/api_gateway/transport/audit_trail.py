"""Recording in the audit log what a route changed in another service, once that service answered.

The change is already made when this runs: a failure to record it is logged, not answered, so a
client never retries a change that succeeded (docs/api.md, "Audit log")."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request

from printcloud.api_gateway.domain.audit import Change
from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.transport.deps import GatewayDeps

log = logging.getLogger(__name__)


async def record(request: Request, identity: Identity, change: Change) -> None:
    deps: GatewayDeps = request.app.state.deps
    try:
        await deps.organization.record(identity, change)
    except (SQLAlchemyError, OSError) as exc:
        log.error(
            "audit log entry not recorded",
            extra={"action": change.action, "target_id": change.target_id, "error": type(exc).__name__},
        )


def sent_fields(body: BaseModel) -> dict[str, Any]:
    """The fields a body set, as JSON, for the entry's details (no body here holds a secret)."""
    shown: dict[str, Any] = body.model_dump(mode="json", include=body.model_fields_set)
    return shown
