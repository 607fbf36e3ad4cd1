"""Dashboard sessions, inside the caller's transaction. Looked up on every request, never cached,
so signing out or losing a membership takes effect on every replica at once."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.persistence.tables import memberships, organizations, sessions, users
from printcloud.core.ids import uuid7


@dataclass(frozen=True)
class StoredSession:
    id: str
    user_id: str
    email: str
    organization_id: str
    organization_name: str
    plan: str
    mode: str
    # None when the user is no longer a member of the session's organization.
    role: str | None
    last_seen_at: datetime
    expires_at: datetime


async def insert_session(
    session: AsyncSession, token_hash: str, user_id: str, organization_id: str, mode: str, expires_at: datetime
) -> str:
    session_id = uuid7()
    await session.execute(
        sessions.insert().values(
            id=session_id,
            token_hash=token_hash,
            user_id=uuid.UUID(user_id),
            organization_id=uuid.UUID(organization_id),
            mode=mode,
            expires_at=expires_at,
        )
    )
    return str(session_id)


async def find_session(session: AsyncSession, token_hash: str) -> StoredSession | None:
    """The unrevoked session with this token hash (expired or not: the caller decides)."""
    row = (
        await session.execute(
            select(
                sessions.c.id,
                sessions.c.user_id,
                users.c.email,
                sessions.c.organization_id,
                organizations.c.name,
                organizations.c.plan,
                sessions.c.mode,
                memberships.c.role,
                sessions.c.last_seen_at,
                sessions.c.expires_at,
            )
            .join(users, users.c.id == sessions.c.user_id)
            .join(organizations, organizations.c.id == sessions.c.organization_id)
            .outerjoin(
                memberships,
                (memberships.c.organization_id == sessions.c.organization_id)
                & (memberships.c.user_id == sessions.c.user_id),
            )
            .where(sessions.c.token_hash == token_hash, sessions.c.revoked_at.is_(None))
        )
    ).one_or_none()
    if row is None:
        return None
    return StoredSession(
        str(row.id), str(row.user_id), row.email, str(row.organization_id), row.name, row.plan, row.mode,
        row.role, row.last_seen_at, row.expires_at,
    )  # fmt: skip


async def touch(session: AsyncSession, session_id: str, now: datetime) -> None:
    await session.execute(update(sessions).where(sessions.c.id == uuid.UUID(session_id)).values(last_seen_at=now))


async def revoke(session: AsyncSession, token_hash: str, now: datetime) -> None:
    await session.execute(
        update(sessions)
        .where(sessions.c.token_hash == token_hash, sessions.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def switch(session: AsyncSession, session_id: str, organization_id: str, mode: str) -> None:
    await session.execute(
        update(sessions)
        .where(sessions.c.id == uuid.UUID(session_id))
        .values(organization_id=uuid.UUID(organization_id), mode=mode)
    )


async def purge_ended(session: AsyncSession, before: datetime) -> None:
    await session.execute(sessions.delete().where(sessions.c.expires_at < before))
