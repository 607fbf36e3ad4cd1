"""Queries of the job timers. The timer columns (`resend_count`, `last_resent_at`, added by
`migrations/0010_timers.sql`) are described here rather than on `tables.print_jobs`, so the
jobs' own mapping stays as it is: only timers read or write them."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Column, DateTime, Integer, MetaData, Table, Text, and_, func, or_, select, update
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import AnyRow
from printcloud.jobs.domain.states import PRINTING, SENT
from printcloud.jobs.domain.timers import EXPIRABLE_STATES, JobClock, TimerPolicy
from printcloud.jobs.persistence.records import Job
from printcloud.jobs.persistence.tables import SCHEMA, print_jobs

job_clocks = Table(
    "print_jobs",
    MetaData(schema=SCHEMA),
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("state", Text, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Column("sent_at", DateTime(timezone=True)),
    Column("printing_at", DateTime(timezone=True)),
    Column("resend_count", Integer, nullable=False),
    Column("last_resent_at", DateTime(timezone=True)),
)
_c = job_clocks.c


async def lock_due(session: AsyncSession, policy: TimerPolicy, now: datetime, limit: int) -> list[tuple[Job, JobClock]]:
    """Up to `limit` jobs with a due timer and their clocks, locked until the transaction ends.

    SKIP LOCKED lets concurrent calls (several dispatcher replicas asking several jobs replicas)
    share the work: a job another call is firing is skipped, and once that commits its timer is
    no longer due, so no timer fires twice. The conditions mirror `domain.timers.due_action`,
    which decides; they are here to use the partial indexes of the migration.
    """
    due = or_(
        and_(_c.state.in_(EXPIRABLE_STATES), _c.expires_at <= now),
        and_(_c.state == PRINTING, _c.printing_at <= now - policy.spooler_timeout),
        and_(_c.state == SENT, func.coalesce(_c.last_resent_at, _c.sent_at) <= now - policy.resend_after),
    )
    query = select(job_clocks).where(due).order_by(_c.id).limit(limit).with_for_update(skip_locked=True)
    clocks = (await session.execute(query)).all()
    if not clocks:
        return []
    # Already locked above, by this transaction.
    loaded = await session.execute(select(Job).where(print_jobs.c.id.in_([clock.id for clock in clocks])))
    jobs = {job.id: job for job in loaded.scalars()}
    return [(jobs[clock.id], _clock(clock)) for clock in clocks]


def _clock(row: AnyRow) -> JobClock:
    return JobClock(
        state=row.state,
        expires_at=row.expires_at,
        sent_at=row.sent_at,
        last_resent_at=row.last_resent_at,
        resend_count=row.resend_count,
        printing_at=row.printing_at,
    )


async def record_resend(session: AsyncSession, job_id: uuid.UUID, now: datetime) -> None:
    await session.execute(
        update(job_clocks).where(_c.id == job_id).values(resend_count=_c.resend_count + 1, last_resent_at=now)
    )


async def reset_resends(session: AsyncSession, job_id: uuid.UUID) -> None:
    """A job leaving `sent` starts its next send with a full set of resends."""
    await session.execute(update(job_clocks).where(_c.id == job_id).values(resend_count=0, last_resent_at=None))
