"""`change_state`, the one unit every caller changes a job's state through."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest
from prometheus_client import REGISTRY

from printcloud.contracts.enums import Actor
from printcloud.contracts.errors import ApiError
from printcloud.jobs.persistence import repository
from printcloud.jobs.use_cases import clock
from printcloud.jobs.use_cases.state_changes import change_state

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def test_a_transition_the_machine_forbids_is_a_conflict_and_records_nothing(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    rows_before = await stack.outbox_rows(job.id)
    with pytest.raises(ApiError) as refused:
        async with stack.db.driver_transaction() as transaction:
            locked = await repository.lock_job(transaction, scope, uuid.UUID(job.id))
            assert locked is not None
            # Only an agent reports `printing`, and never of a queued job.
            await change_state(transaction, locked, "printing", Actor.system, clock.now())
    assert refused.value.code == "conflict"
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued"]
    assert await stack.outbox_rows(job.id) == rows_before


async def test_an_allowed_transition_stamps_records_and_publishes_together(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    at = clock.now()
    async with stack.db.driver_transaction() as transaction:
        locked = await repository.lock_job(transaction, scope, uuid.UUID(job.id))
        assert locked is not None
        await change_state(transaction, locked, "sent", Actor.system, at)
    stored = await repository.read_job(stack.db, scope, uuid.UUID(job.id))
    assert stored is not None and (stored.state, stored.sent_at) == ("sent", at)
    changes = await stack.state_changes(job.id)
    assert [(c.state, c.actor, c.created_at) for c in changes][-1] == ("sent", "system", at)
    events = [r.payload for r in await stack.outbox_rows(job.id) if r.payload["type"].startswith("printjob.")]
    assert events[-1]["type"] == "printjob.sent"
    assert events[-1]["data"]["state"] == "sent"


def finished(state: str, mode: str) -> float:
    return REGISTRY.get_sample_value("printcloud_jobs_finished_total", {"state": state, "mode": mode}) or 0.0


async def test_a_job_that_ends_is_counted_by_state_and_mode_once_its_change_commits(stack: Stack) -> None:
    live, test = stack.new_scope("live"), stack.new_scope("test")
    before = {mode: finished("cancelled", mode) for mode in ("live", "test")}
    jobs = [(scope, await stack.create_job(scope, stack.add_printer(scope))) for scope in (live, live, test)]
    async with stack.db.driver_transaction() as transaction:
        for scope, job in jobs:
            locked = await repository.lock_job(transaction, scope, uuid.UUID(job.id))
            assert locked is not None
            await change_state(transaction, locked, "cancelled", Actor.api, clock.now())
        assert finished("cancelled", "live") == before["live"], "not before the commit"
    assert finished("cancelled", "live") == before["live"] + 2
    assert finished("cancelled", "test") == before["test"] + 1
    assert REGISTRY.get_sample_value("printcloud_jobs_finished_total", {"state": "sent", "mode": "live"}) is None


async def test_an_ending_that_rolls_back_is_not_counted(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    before = finished("cancelled", "live")
    with pytest.raises(RuntimeError):
        async with stack.db.driver_transaction() as transaction:
            locked = await repository.lock_job(transaction, scope, uuid.UUID(job.id))
            assert locked is not None
            await change_state(transaction, locked, "cancelled", Actor.api, clock.now())
            raise RuntimeError("something after the change fails")
    assert finished("cancelled", "live") == before
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued"]
    # The job can still end, and then counts.
    async with stack.db.driver_transaction() as transaction:
        locked = await repository.lock_job(transaction, scope, uuid.UUID(job.id))
        assert locked is not None
        await change_state(transaction, locked, "cancelled", Actor.api, clock.now())
    assert finished("cancelled", "live") == before + 1
