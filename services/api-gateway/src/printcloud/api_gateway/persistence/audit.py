"""The audit log: entries written inside the caller's transaction, read a page at a time."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.api_gateway.domain.audit import Actor, Change
from printcloud.api_gateway.persistence.tables import api_keys, audit_log, users
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7


@dataclass(frozen=True)
class Entry:
    id: str
    mode: str | None
    # An address, `key <name> (<prefix>…)`, or `operator` for the CLI.
    actor: str
    action: str
    target_id: str
    target: str
    details: dict[str, Any]
    created_at: datetime


async def add(session: AsyncSession, organization_id: str, actor: Actor, change: Change) -> None:
    await session.execute(
        audit_log.insert().values(
            id=uuid7(),
            organization_id=uuid.UUID(organization_id),
            mode=change.mode,
            actor_user_id=uuid.UUID(actor.user_id) if actor.user_id else None,
            actor_api_key_id=uuid.UUID(actor.api_key_id) if actor.api_key_id else None,
            action=change.action,
            target_id=change.target_id,
            target=change.target,
            details=change.details,
        )
    )


def _actor_label(row: Any) -> str:
    if row.email is not None:
        return str(row.email)
    if row.key_prefix is not None:
        name = f"{row.key_name} " if row.key_name else ""
        return f"API key {name}({row.key_prefix}…)"
    return "operator"


_ENTRY: Bundle[Row[Any]] = Bundle(
    "entry", *audit_log.c, users.c.email, api_keys.c.name.label("key_name"), api_keys.c.key_prefix
)


async def entries(session: AsyncSession, organization_id: str, mode: str, page: PageRequest) -> Page[Entry]:
    """The organization's own entries and those of `mode`, newest first by default."""
    query = (
        select(_ENTRY)
        .select_from(
            audit_log.outerjoin(users, users.c.id == audit_log.c.actor_user_id).outerjoin(
                api_keys, api_keys.c.id == audit_log.c.actor_api_key_id
            )
        )
        .where(
            audit_log.c.organization_id == uuid.UUID(organization_id),
            or_(audit_log.c.mode.is_(None), audit_log.c.mode == mode),
        )
    )
    rows = await fetch_page(session, query, audit_log.c.id, page)
    shown = [
        Entry(str(r.id), r.mode, _actor_label(r), r.action, r.target_id, r.target, r.details, r.created_at)
        for r in rows.items
    ]
    return Page(shown, rows.has_more, rows.next_cursor)
