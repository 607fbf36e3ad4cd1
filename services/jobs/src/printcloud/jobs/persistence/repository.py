"""Every query of the jobs schema. Tenant queries take a `Scope` and filter on both of its parts,
so a job of another organization or mode is simply not found.

Functions take the caller's session: the caller owns the transaction, which lets one state change
(job row, state-change row, outbox rows) commit or fail as a whole.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import LargeBinary, Row, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.ids import uuid7
from printcloud.core.paging import Page, PageRequest, fetch_page
from printcloud.jobs.domain.states import QUEUED
from printcloud.jobs.persistence.records import JobRecord
from printcloud.jobs.persistence.tables import job_state_changes, print_jobs, stored_files


@dataclass(frozen=True)
class Scope:
    organization_id: uuid.UUID
    mode: str


@dataclass(frozen=True)
class JobFilters:
    printer_id: uuid.UUID | None = None
    computer_id: uuid.UUID | None = None
    state: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None


async def add_file(
    session: AsyncSession, scope: Scope, content: bytes, sha256: str, created_at: datetime, expires_at: datetime
) -> uuid.UUID:
    file_id = uuid7()
    await session.execute(
        stored_files.insert().values(
            id=file_id,
            organization_id=scope.organization_id,
            mode=scope.mode,
            sha256=sha256,
            size=len(content),
            content=content,
            created_at=created_at,
            expires_at=expires_at,
        )
    )
    return file_id


async def add_job(session: AsyncSession, job: JobRecord) -> None:
    session.add(job)
    # Written now so that the state-change row referencing it can follow in the same transaction.
    await session.flush()


async def add_state_change(
    session: AsyncSession, job: JobRecord, message: str | None, actor: str, created_at: datetime
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


def _in_scope(scope: Scope) -> Any:
    return (print_jobs.c.organization_id == scope.organization_id) & (print_jobs.c.mode == scope.mode)


async def get_job(session: AsyncSession, scope: Scope, job_id: uuid.UUID, *, lock: bool = False) -> JobRecord | None:
    """`lock` holds the row until the transaction ends, so concurrent changes of one job serialize."""
    query = select(JobRecord).where(print_jobs.c.id == job_id, _in_scope(scope))
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def get_computer_job(
    session: AsyncSession, computer_id: uuid.UUID, job_id: uuid.UUID, *, lock: bool = False
) -> JobRecord | None:
    """A job as its computer's agent sees it: unscoped, but only that computer's jobs."""
    query = select(JobRecord).where(print_jobs.c.id == job_id, print_jobs.c.computer_id == computer_id)
    if lock:
        query = query.with_for_update()
    return (await session.execute(query)).scalar_one_or_none()


async def list_jobs(session: AsyncSession, scope: Scope, filters: JobFilters, page: PageRequest) -> Page[JobRecord]:
    query = select(JobRecord).where(_in_scope(scope))
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
    return await fetch_page(session, query, print_jobs.c.id, page)


async def list_state_changes(session: AsyncSession, job_id: uuid.UUID) -> Sequence[Row[Any]]:
    """Oldest first; callers find the job in scope first."""
    query = select(job_state_changes).where(job_state_changes.c.job_id == job_id).order_by(job_state_changes.c.id)
    return (await session.execute(query)).all()


async def list_pending_jobs(session: AsyncSession, computer_id: uuid.UUID) -> Sequence[JobRecord]:
    query = (
        select(JobRecord)
        .where(print_jobs.c.computer_id == computer_id, print_jobs.c.state == QUEUED)
        .order_by(print_jobs.c.id)
    )
    return (await session.execute(query)).scalars().all()


async def read_file_chunk(session: AsyncSession, file_id: uuid.UUID, offset: int, size: int) -> bytes | None:
    """`size` bytes of a stored file from `offset`, or None when the file is gone."""
    # substring() counts from 1 and lets PostgreSQL send only this chunk, not the whole file.
    query = select(func.substring(stored_files.c.content, offset + 1, size, type_=LargeBinary)).where(
        stored_files.c.id == file_id
    )
    return (await session.execute(query)).scalar_one_or_none()
