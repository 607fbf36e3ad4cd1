"""Every query of the jobs schema. Tenant queries take a `Scope` and filter on both of its parts,
so a job of another organization or mode is simply not found.

Functions take the caller's session: the caller owns the transaction, which lets one state change
(job row, state-change row, outbox rows) commit or fail as a whole.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, delete, exists, func, or_, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.compiled_reads import CompiledRead, Fields, scope_bindparams, scope_values
from printcloud.core.db.database import AnyRow, Database, rows_affected
from printcloud.core.db.list_filters import JobFilters
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.jobs.domain.states import ACTIVE_STATES, QUEUED, TERMINAL_STATES
from printcloud.jobs.persistence.records import Job
from printcloud.jobs.persistence.tables import (
    job_state_changes,
    live_print_counts,
    pending_fetches,
    print_jobs,
    stored_file_chunks,
    stored_files,
    test_job_counts,
)


async def add_file(
    session: AsyncSession,
    scope: Scope,
    content: bytes | bytearray,
    sha256: str,
    created_at: datetime,
    expires_at: datetime,
    chunk_bytes: int,
) -> uuid.UUID:
    file_id = uuid7()
    await session.execute(
        stored_files.insert().values(
            id=file_id,
            organization_id=scope.organization_id,
            mode=scope.mode,
            sha256=sha256,
            size=len(content),
            created_at=created_at,
            expires_at=expires_at,
        )
    )
    view = memoryview(content)
    # One statement per piece: the driver never builds a message the size of the whole file.
    for seq, offset in enumerate(range(0, len(content), chunk_bytes)):
        await session.execute(
            stored_file_chunks.insert().values(file_id=file_id, seq=seq, data=view[offset : offset + chunk_bytes])
        )
    return file_id


async def add_job(session: AsyncSession, job: Job) -> None:
    session.add(job)
    # Written now so that the state-change row referencing it can follow in the same transaction.
    await session.flush()


async def add_state_change(
    session: AsyncSession, job: Job, message: str | None, actor: str, created_at: datetime
) -> None:
    """Records the state `job` is in now."""
    await session.flush()
    await session.execute(
        job_state_changes.insert().values(
            id=uuid7(),
            job_id=job.id,
            organization_id=job.organization_id,
            mode=job.mode,
            state=job.state,
            message=message,
            actor=actor,
            created_at=created_at,
        )
    )


def _in_scope(scope: Scope) -> ColumnElement[bool]:
    return _in(scope.organization_id, scope.mode)


def _in(organization_id: Any, mode: Any) -> ColumnElement[bool]:
    """The scope's condition on values, or on named bindparams of a compiled read."""
    return and_(print_jobs.c.organization_id == organization_id, print_jobs.c.mode == mode)


# `GET /v1/printjobs/{id}`, the hottest read of jobs, is a compiled read (`core.db.compiled_reads`).
_job_in_scope = CompiledRead.of(
    select(print_jobs).where(print_jobs.c.id == bindparam("job_id"), _in(*scope_bindparams()))
)


_computer_job = CompiledRead.of(
    select(print_jobs).where(
        print_jobs.c.id == bindparam("job_id"), print_jobs.c.computer_id == bindparam("computer_id")
    )
)


def _job_of(row: Fields | None) -> Job | None:
    return Job(**dict(row.items())) if row is not None else None


async def read_job(db: Database, scope: Scope, job_id: uuid.UUID) -> Job | None:
    """A job as it stands, outside any transaction (the same job `get_job` reads in one)."""
    return _job_of(await db.fetch_one(_job_in_scope, job_id=job_id, **scope_values(scope)))


async def read_computer_job(db: Database, computer_id: uuid.UUID, job_id: uuid.UUID) -> Job | None:
    """A job as its computer's agent sees it, outside any transaction (as `get_computer_job`
    reads it in one): the check before every download."""
    return _job_of(await db.fetch_one(_computer_job, job_id=job_id, computer_id=computer_id))


async def get_job(session: AsyncSession, scope: Scope, job_id: uuid.UUID, *, lock: bool = False) -> Job | None:
    """`lock` holds the row until the transaction ends, so concurrent changes of one job serialize."""
    query = select(Job).where(print_jobs.c.id == job_id, _in_scope(scope))
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def get_computer_job(
    session: AsyncSession, computer_id: uuid.UUID, job_id: uuid.UUID, *, lock: bool = False
) -> Job | None:
    """A job as its computer's agent sees it: unscoped, but only that computer's jobs."""
    query = select(Job).where(print_jobs.c.id == job_id, print_jobs.c.computer_id == computer_id)
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def lock_jobs(session: AsyncSession, job_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Job]:
    """The jobs of `job_ids` that exist, locked until the transaction ends, taken in id order."""
    query = select(Job).where(print_jobs.c.id.in_(job_ids)).order_by(print_jobs.c.id).with_for_update()
    return {job.id: job for job in (await session.execute(query)).scalars()}


async def list_jobs(session: AsyncSession, scope: Scope, filters: JobFilters, page: PageRequest) -> Page[Job]:
    query = select(Job).where(_in_scope(scope))
    if filters.printer_id is not None:
        query = query.where(print_jobs.c.printer_id == filters.printer_id)
    if filters.computer_id is not None:
        query = query.where(print_jobs.c.computer_id == filters.computer_id)
    if filters.state is not None:
        query = query.where(print_jobs.c.state == filters.state)
    if filters.created_from is not None:
        query = query.where(print_jobs.c.created_at >= filters.created_from)
    if filters.created_to is not None:
        query = query.where(print_jobs.c.created_at <= filters.created_to)
    if filters.title_contains is not None:
        # Read in id order within the scope, stopping once a page has matched: no index here serves a
        # substring, and the page's limit bounds the rows returned, not the rows read.
        query = query.where(print_jobs.c.title.icontains(filters.title_contains, autoescape=True))
    return await fetch_page(session, query, print_jobs.c.id, page)


async def list_state_changes(session: AsyncSession, job_id: uuid.UUID) -> Sequence[AnyRow]:
    """Oldest first; callers find the job in scope first."""
    query = select(job_state_changes).where(job_state_changes.c.job_id == job_id).order_by(job_state_changes.c.id)
    return (await session.execute(query)).all()


async def list_pending_jobs(session: AsyncSession, computer_id: uuid.UUID) -> Sequence[Job]:
    query = (
        select(Job)
        # A job without its file yet (URL content being fetched) is delivered once fetched.
        .where(print_jobs.c.computer_id == computer_id, print_jobs.c.state == QUEUED, print_jobs.c.file_id.is_not(None))
        .order_by(print_jobs.c.id)
    )
    return (await session.execute(query)).scalars().all()


_file_chunk = CompiledRead.of(
    select(stored_file_chunks.c.data).where(
        stored_file_chunks.c.file_id == bindparam("file_id"), stored_file_chunks.c.seq == bindparam("seq")
    )
)


async def read_file_chunk(db: Database, file_id: uuid.UUID, seq: int) -> bytes | None:
    """Piece `seq` of a stored file, or None past its end or when the file is gone (a compiled
    read: every job's download reads its file)."""
    row = await db.fetch_one(_file_chunk, file_id=file_id, seq=seq)
    return row.data if row is not None else None


async def live_file(session: AsyncSession, scope: Scope, file_id: uuid.UUID | None, now: datetime) -> bool:
    """Whether the stored file is still kept (not past its retention, not purged)."""
    if file_id is None:
        return False
    query = select(stored_files.c.id).where(
        stored_files.c.id == file_id,
        stored_files.c.organization_id == scope.organization_id,
        stored_files.c.mode == scope.mode,
        stored_files.c.expires_at > now,
    )
    return (await session.execute(query)).first() is not None


async def purge_files(session: AsyncSession, now: datetime) -> int:
    """Deletes files past their retention, except those a job still on its way to the agent needs."""
    still_needed = exists().where(
        print_jobs.c.file_id == stored_files.c.id, print_jobs.c.state.not_in(list(TERMINAL_STATES))
    )
    return await rows_affected(session, delete(stored_files).where(stored_files.c.expires_at <= now, ~still_needed))


async def count_test_job(session: AsyncSession, organization_id: uuid.UUID, day: date) -> int:
    """Adds one test job to the organization's count of `day` and returns the new count.

    The row lock taken by the upsert serializes concurrent creations of one organization, and a
    rolled-back creation takes its count back with it.
    """
    statement = (
        insert(test_job_counts)
        .values(organization_id=organization_id, day=day, jobs=1)
        .on_conflict_do_update(
            index_elements=[test_job_counts.c.organization_id, test_job_counts.c.day],
            set_={"jobs": test_job_counts.c.jobs + 1},
        )
        .returning(test_job_counts.c.jobs)
    )
    jobs: int = (await session.execute(statement)).scalar_one()
    return jobs


async def count_live_prints(session: AsyncSession, organization_id: uuid.UUID, month: date, prints: int) -> int:
    """Adds `prints` to the organization's live prints of `month` and returns the new total; like
    `count_test_job`, the row lock serializes concurrent creations and a rollback takes it back."""
    statement = (
        insert(live_print_counts)
        .values(organization_id=organization_id, month=month, prints=prints)
        .on_conflict_do_update(
            index_elements=[live_print_counts.c.organization_id, live_print_counts.c.month],
            set_={"prints": live_print_counts.c.prints + prints},
        )
        .returning(live_print_counts.c.prints)
    )
    total: int = (await session.execute(statement)).scalar_one()
    return total


async def usage_counts(session: AsyncSession, organization_id: uuid.UUID, month: date, day: date) -> tuple[int, int]:
    """(live prints of `month`, test jobs of `day`) of the organization."""
    live = await session.scalar(
        select(live_print_counts.c.prints).where(
            live_print_counts.c.organization_id == organization_id, live_print_counts.c.month == month
        )
    )
    test = await session.scalar(
        select(test_job_counts.c.jobs).where(
            test_job_counts.c.organization_id == organization_id, test_job_counts.c.day == day
        )
    )
    return live or 0, test or 0


async def add_pending_fetch(
    session: AsyncSession, job_id: uuid.UUID, url: str, auth: tuple[str, str] | None, expires_at: datetime
) -> None:
    user, password = auth if auth is not None else (None, None)
    await session.execute(
        pending_fetches.insert().values(
            job_id=job_id, url=url, auth_user=user, auth_pass=password, expires_at=expires_at
        )
    )


async def claim_pending_fetch(session: AsyncSession, now: datetime, claim_until: datetime) -> AnyRow | None:
    """One unexpired fetch nobody holds, now held until `claim_until`; SKIP LOCKED lets replicas share."""
    candidate = (
        select(pending_fetches.c.job_id)
        .where(
            pending_fetches.c.expires_at > now,
            or_(pending_fetches.c.claimed_until.is_(None), pending_fetches.c.claimed_until <= now),
        )
        .order_by(pending_fetches.c.job_id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    statement = (
        update(pending_fetches)
        .where(pending_fetches.c.job_id == candidate)
        .values(claimed_until=claim_until)
        .returning(pending_fetches)
    )
    claimed: AnyRow | None = (await session.execute(statement)).first()
    return claimed


async def delete_pending_fetch(session: AsyncSession, job_id: uuid.UUID) -> None:
    await session.execute(delete(pending_fetches).where(pending_fetches.c.job_id == job_id))


async def take_expired_fetches(session: AsyncSession, now: datetime) -> Sequence[uuid.UUID]:
    """Deletes fetches held past their hour and returns their jobs."""
    statement = delete(pending_fetches).where(pending_fetches.c.expires_at <= now).returning(pending_fetches.c.job_id)
    return (await session.execute(statement)).scalars().all()


async def get_job_by_id(session: AsyncSession, job_id: uuid.UUID, *, lock: bool = False) -> Job | None:
    """For the service's own workers, which hold a job id rather than a caller's scope."""
    query = select(Job).where(print_jobs.c.id == job_id)
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def count_active_by_state(session: AsyncSession) -> dict[tuple[str, str], int]:
    """Jobs not yet in a final state, by (state, mode), from the partial index that holds only them."""
    rows = await session.execute(
        select(print_jobs.c.state, print_jobs.c.mode, func.count())
        .where(print_jobs.c.state.in_(ACTIVE_STATES))
        .group_by(print_jobs.c.state, print_jobs.c.mode)
    )
    return {(state, mode): count for state, mode, count in rows}
