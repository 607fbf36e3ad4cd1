"""API keys as the dashboard manages them: listed and revoked within one organization."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.domain.api_keys import NewApiKey
from printcloud.api_gateway.persistence.tables import api_keys, organizations
from printcloud.core.db.database import rows_affected
from printcloud.core.ids import uuid7


@dataclass(frozen=True)
class ListedKey:
    id: str
    name: str
    mode: str
    scopes: tuple[str, ...]
    prefix: str
    last_four: str
    created_at: datetime
    last_used_at: datetime | None


async def insert_key(
    session: AsyncSession,
    organization_id: str,
    name: str,
    mode: str,
    scopes: tuple[str, ...],
    key: NewApiKey,
    created_by: str | None,
) -> str:
    key_id = uuid7()
    await session.execute(
        api_keys.insert().values(
            id=key_id,
            organization_id=uuid.UUID(organization_id),
            name=name,
            mode=mode,
            key_hash=key.key_hash,
            key_prefix=key.display_prefix,
            key_last_four=key.last_four,
            scopes=list(scopes),
            created_by=uuid.UUID(created_by) if created_by else None,
        )
    )
    return str(key_id)


async def active_keys(session: AsyncSession, organization_id: str) -> list[ListedKey]:
    rows = await session.execute(
        select(api_keys)
        .where(api_keys.c.organization_id == uuid.UUID(organization_id), api_keys.c.revoked_at.is_(None))
        .order_by(api_keys.c.created_at.desc())
    )
    return [
        ListedKey(
            str(r.id), r.name, r.mode, tuple(r.scopes), r.key_prefix, r.key_last_four, r.created_at, r.last_used_at
        )
        for r in rows
    ]


async def revoke_key(session: AsyncSession, organization_id: str, key_id: str) -> str | None:
    """How the revoked key is shown (`name (prefix…)`); None when the organization has no such active key."""
    row = (
        await session.execute(
            update(api_keys)
            .where(
                api_keys.c.id == uuid.UUID(key_id),
                api_keys.c.organization_id == uuid.UUID(organization_id),
                api_keys.c.revoked_at.is_(None),
            )
            .values(revoked_at=func.now())
            .returning(api_keys.c.name, api_keys.c.key_prefix)
        )
    ).one_or_none()
    return None if row is None else key_label(row.name, row.key_prefix)


def key_label(name: str, prefix: str) -> str:
    return f"{name} ({prefix}…)" if name else f"{prefix}…"


@dataclass(frozen=True)
class KeyHolder:
    """Who an unrevoked key of a live organization belongs to."""

    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    scopes: list[str]
    organization_name: str
    plan: str


async def holder_of(session: AsyncSession, key_hash: str) -> KeyHolder | None:
    row = (
        await session.execute(
            select(
                api_keys.c.id,
                api_keys.c.organization_id,
                api_keys.c.mode,
                api_keys.c.scopes,
                organizations.c.name,
                organizations.c.plan,
            )
            .join(organizations, organizations.c.id == api_keys.c.organization_id)
            .where(
                api_keys.c.key_hash == key_hash,
                api_keys.c.revoked_at.is_(None),
                organizations.c.deleted_at.is_(None),
            )
        )
    ).one_or_none()
    if row is None:
        return None
    return KeyHolder(row.id, row.organization_id, row.mode, list(row.scopes), row.name, row.plan)


async def mark_used(session: AsyncSession, key_id: uuid.UUID, precision: timedelta) -> None:
    """Records the use unless one was recorded within `precision`."""
    await session.execute(
        update(api_keys)
        .where(
            api_keys.c.id == key_id,
            or_(api_keys.c.last_used_at.is_(None), api_keys.c.last_used_at < func.now() - precision),
        )
        .values(last_used_at=func.now())
    )


async def revoke_any(session: AsyncSession, key_id: str) -> bool:
    """Revokes the key of whichever organization holds it: False when no active key has the id."""
    revoked = await rows_affected(
        session,
        update(api_keys)
        .where(api_keys.c.id == uuid.UUID(key_id), api_keys.c.revoked_at.is_(None))
        .values(revoked_at=func.now()),
    )
    return revoked > 0
