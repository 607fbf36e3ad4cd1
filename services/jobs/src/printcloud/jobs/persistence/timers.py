"""Queries of the job timers, compiled statements of the timers' driver transaction. The timer
columns (`resend_count`, `last_resent_at`, added by `migrations/0010_timers.sql`) are described
here rather than on `tables.print_jobs`: only timers read or write them. `job_clocks` is the row as
timers see it, every column of `tables.print_jobs` and those two, so that the statement which finds
and locks the due jobs also reads them whole."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    Column,
    ColumnElement,
    DateTime,
    Integer,
    MetaData,
    Table,
    Text,
    and_,
    bindparam,
    func,
    literal_column,
    or_,
    select,
    update,
)

from printcloud.core.db.compiled_reads import CompiledRead, Fields
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.jobs.domain.job import Job
from printcloud.jobs.domain.states import PRINTING, SENT
from printcloud.jobs.domain.timers import EXPIRABLE_STATES, JobClock, TimerPolicy
from printcloud.jobs.persistence.tables import SCHEMA, print_jobs

_JOB_COLUMNS = tuple(column.name for column in print_jobs.c)
job_clocks = Table(
    "print_jobs",
    MetaData(schema=SCHEMA),
    *(Column(column.name, column.type, primary_key=column.primary_key) for column in print_jobs.c),
    Column("resend_count", Integer, nullable=False),
    Column("last_resent_at", DateTime(timezone=True)),
)
_c = job_clocks.c


def _state(name: str) -> ColumnElement[str]:
    """A state written into the statement, not sent as a value: only then can PostgreSQL use the
    partial indexes (whose conditions name the states) for every execution of a prepared statement."""
    return literal_column(f"'{name}'", Text)


# The conditions mirror `domain.timers.due_action`, which decides; they are here to use the partial
# indexes of the migration. SKIP LOCKED lets concurrent calls (several dispatcher replicas asking
# several jobs replicas) share the work: a job another call is firing is skipped, and once that
# commits its timer is no longer due, so no timer fires twice.
_lock_due = CompiledRead.of(
    select(job_clocks)
    .where(
        or_(
            and_(_c.state.in_([_state(state) for state in EXPIRABLE_STATES]), _c.expires_at <= bindparam("now")),
            and_(_c.state == _state(PRINTING), _c.printing_at <= bindparam("printing_before")),
            and_(_c.state == _state(SENT), func.coalesce(_c.last_resent_at, _c.sent_at) <= bindparam("sent_before")),
        )
    )
    .order_by(_c.id)
    .limit(bindparam("limit", type_=Integer))
    .with_for_update(skip_locked=True)
)
_record_resend = CompiledWrite.of(
    update(job_clocks)
    .where(_c.id == bindparam("job_id"))
    .values(resend_count=_c.resend_count + literal_column("1"), last_resent_at=bindparam("now"))
)
_reset_resends = CompiledWrite.of(
    update(job_clocks)
    .where(_c.id == bindparam("job_id"))
    .values(resend_count=literal_column("0"), last_resent_at=literal_column("NULL"))
)


async def lock_due(
    transaction: DriverTransaction, policy: TimerPolicy, now: datetime, limit: int
) -> list[tuple[Job, JobClock]]:
    """Up to `limit` jobs with a due timer and their clocks, locked until the transaction ends."""
    rows = await transaction.fetch(
        _lock_due,
        now=now,
        printing_before=now - policy.spooler_timeout,
        sent_before=now - policy.resend_after,
        limit=limit,
    )
    return [(Job(**{name: row[name] for name in _JOB_COLUMNS}), _clock(row)) for row in rows]


def _clock(row: Fields) -> JobClock:
    return JobClock(
        state=row.state,
        expires_at=row.expires_at,
        sent_at=row.sent_at,
        last_resent_at=row.last_resent_at,
        resend_count=row.resend_count,
        printing_at=row.printing_at,
    )


async def record_resend(transaction: DriverTransaction, job_id: uuid.UUID, now: datetime) -> None:
    await transaction.execute(_record_resend, job_id=job_id, now=now)


async def reset_resends(transaction: DriverTransaction, job_id: uuid.UUID) -> None:
    """A job leaving `sent` starts its next send with a full set of resends."""
    await transaction.execute(_reset_resends, job_id=job_id)
