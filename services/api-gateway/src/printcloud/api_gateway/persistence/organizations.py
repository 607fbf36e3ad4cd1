"""An organization's own settings and its deletion, inside the caller's transaction."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.persistence.tables import api_keys, invitations, memberships, organizations
from printcloud.core.db.database import rows_affected


async def lock(session: AsyncSession, organization_id: str) -> str | None:
    """The live organization's name, its row locked until the transaction ends; None once deleted."""
    return await session.scalar(
        select(organizations.c.name)
        .where(organizations.c.id == uuid.UUID(organization_id), organizations.c.deleted_at.is_(None))
        .with_for_update()
    )


async def rename(session: AsyncSession, organization_id: str, name: str) -> None:
    await session.execute(
        update(organizations).where(organizations.c.id == uuid.UUID(organization_id)).values(name=name)
    )


async def delete(session: AsyncSession, organization_id: str) -> int:
    """Closes every way into the organization: its API keys revoked (which every replica's key
    cache hears of), its memberships and open invitations ended (so a session acting for it is
    refused, as a removed member's is). Returns how many keys were revoked. The row stays, marked
    deleted, for what still refers to it."""
    org = uuid.UUID(organization_id)
    now = func.now()
    await session.execute(update(organizations).where(organizations.c.id == org).values(deleted_at=now))
    revoked = await rows_affected(
        session,
        update(api_keys)
        .where(api_keys.c.organization_id == org, api_keys.c.revoked_at.is_(None))
        .values(revoked_at=now),
    )
    await session.execute(memberships.delete().where(memberships.c.organization_id == org))
    await session.execute(
        update(invitations)
        .where(
            invitations.c.organization_id == org,
            invitations.c.accepted_at.is_(None),
            invitations.c.revoked_at.is_(None),
        )
        .values(revoked_at=now)
    )
    return revoked


async def is_live(session: AsyncSession, organization_id: str) -> bool:
    """Whether the organization exists and is not deleted."""
    found = await session.scalar(
        select(organizations.c.id).where(
            organizations.c.id == uuid.UUID(organization_id), organizations.c.deleted_at.is_(None)
        )
    )
    return found is not None


async def set_plan(session: AsyncSession, organization_id: str, plan: str) -> bool:
    """False when there is no live organization of that id."""
    updated = await rows_affected(
        session,
        update(organizations)
        .where(organizations.c.id == uuid.UUID(organization_id), organizations.c.deleted_at.is_(None))
        .values(plan=plan),
    )
    return updated > 0
