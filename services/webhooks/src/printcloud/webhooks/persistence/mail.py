"""Organization owners' addresses and the queue of e-mails to them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.ids import uuid7
from printcloud.webhooks.persistence.tables import organization_owners, outgoing_mail


@dataclass(frozen=True)
class Mail:
    id: uuid.UUID
    recipient: str
    subject: str
    body: str
    attempts: int


async def replace_owners(session: AsyncSession, organization_id: uuid.UUID, emails: Sequence[str]) -> None:
    await session.execute(delete(organization_owners).where(organization_owners.c.organization_id == organization_id))
    if emails:
        await session.execute(
            pg_insert(organization_owners).on_conflict_do_nothing(),
            [{"organization_id": organization_id, "email": email} for email in emails],
        )


async def queue_to_owners(
    session: AsyncSession, organization_id: uuid.UUID, subject: str, body: str, now: datetime
) -> int:
    owners = (
        await session.execute(
            select(organization_owners.c.email).where(organization_owners.c.organization_id == organization_id)
        )
    ).scalars()
    rows = [
        {
            "id": uuid7(),
            "recipient": email,
            "subject": subject,
            "body": body,
            "created_at": now,
            "attempts": 0,
            "next_attempt_at": now,
        }
        for email in owners
    ]
    if rows:
        await session.execute(outgoing_mail.insert(), rows)
    return len(rows)


async def claim_due(session: AsyncSession, now: datetime, limit: int) -> list[Mail]:
    """Locks due unsent mail for the caller's transaction (several replicas never send one twice)."""
    rows = (
        await session.execute(
            select(outgoing_mail)
            .where(outgoing_mail.c.sent_at.is_(None), outgoing_mail.c.next_attempt_at <= now)
            .order_by(outgoing_mail.c.next_attempt_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    ).all()
    return [Mail(r.id, r.recipient, r.subject, r.body, r.attempts) for r in rows]


async def next_due(session: AsyncSession) -> datetime | None:
    """When the earliest unsent e-mail is due, or None when none waits."""
    earliest = select(func.min(outgoing_mail.c.next_attempt_at)).where(outgoing_mail.c.sent_at.is_(None))
    due: datetime | None = (await session.execute(earliest)).scalar_one()
    return due


async def mark_sent(session: AsyncSession, mail_id: uuid.UUID, now: datetime) -> None:
    await session.execute(
        outgoing_mail.update()
        .where(outgoing_mail.c.id == mail_id)
        .values(sent_at=now, attempts=outgoing_mail.c.attempts + 1)
    )


async def mark_failed(session: AsyncSession, mail: Mail, now: datetime, wait: timedelta) -> None:
    await session.execute(
        outgoing_mail.update()
        .where(outgoing_mail.c.id == mail.id)
        .values(attempts=mail.attempts + 1, next_attempt_at=now + wait)
    )
