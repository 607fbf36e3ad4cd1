"""Housekeeping's purges on the real database: they count exactly the rows they delete, a file past
its retention stays while a job on its way to the agent needs it, and idempotency keys go after 24 hours."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import select, update

from printcloud.contracts.errors import ApiError
from printcloud.core.timeutil import utcnow
from printcloud.jobs.domain.idempotency import RETENTION
from printcloud.jobs.persistence import idempotency, repository
from printcloud.jobs.persistence.tables import idempotency_keys, print_jobs, stored_files

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def _file_kept(stack: Stack, file_id: uuid.UUID) -> bool:
    async with stack.db.read() as session:
        query = select(stored_files.c.id).where(stored_files.c.id == file_id)
        return (await session.execute(query)).first() is not None


async def test_an_expired_file_is_purged_unless_an_unfinished_job_needs_it(stack: Stack) -> None:
    # Other tests share the database: what they left past its retention goes first.
    await stack.service.purge_files()
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    expired = utcnow() - timedelta(days=8)
    async with stack.db.driver_transaction() as transaction:
        orphan = await repository.add_file(
            transaction, repository.new_file(scope, stack.pdf, "sha", expired, expired, 1024)
        )
    async with stack.db.transaction() as session:
        query = select(print_jobs.c.file_id).where(print_jobs.c.id == uuid.UUID(job.id))
        needed: uuid.UUID = (await session.execute(query)).scalar_one()
        await session.execute(update(stored_files).where(stored_files.c.id == needed).values(expires_at=expired))

    assert await stack.service.purge_files() == 1
    assert not await _file_kept(stack, orphan)
    assert await _file_kept(stack, needed), "the queued job still has to deliver it"


async def test_idempotency_keys_are_purged_after_their_retention(stack: Stack) -> None:
    await stack.service.purge_idempotency_keys()
    organization = uuid.uuid4()
    now = utcnow()
    async with stack.db.driver_transaction() as transaction:
        for key, age in (("old", RETENTION + timedelta(minutes=1)), ("young", RETENTION - timedelta(minutes=1))):
            await idempotency.record(transaction, organization, key, "f", uuid.uuid4(), b"answer", now - age)

    assert await stack.service.purge_idempotency_keys() == 1
    async with stack.db.read() as session:
        query = select(idempotency_keys.c.key).where(idempotency_keys.c.organization_id == organization)
        assert list((await session.execute(query)).scalars()) == ["young"]


async def test_a_file_past_its_retention_is_no_longer_downloaded(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    chunks = [chunk async for chunk, _ in stack.service.read_stored_file(scope, uuid.UUID(job.id))]
    assert b"".join(chunks) == stack.pdf
    async with stack.db.transaction() as session:
        file_id = select(print_jobs.c.file_id).where(print_jobs.c.id == uuid.UUID(job.id)).scalar_subquery()
        past = utcnow() - timedelta(seconds=1)
        await session.execute(update(stored_files).where(stored_files.c.id == file_id).values(expires_at=past))
    with pytest.raises(ApiError) as gone:
        _ = [chunk async for chunk in stack.service.read_stored_file(scope, uuid.UUID(job.id))]
    assert gone.value.code == "file_expired"
