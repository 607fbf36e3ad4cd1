"""`change_state`, the one unit every caller changes a job's state through."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest

from printcloud.core.errors import ApiError
from printcloud.jobs.domain.states import Actor
from printcloud.jobs.persistence import repository
from printcloud.jobs.use_cases import clock
from printcloud.jobs.use_cases.state_changes import change_state

if TYPE_CHECKING:
    from conftest import Stack


async def test_a_transition_the_machine_forbids_is_a_conflict_and_records_nothing(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    rows_before = await stack.outbox_rows(job.id)
    with pytest.raises(ApiError) as refused:
        async with stack.db.transaction() as session:
            locked = await repository.get_job(session, scope, uuid.UUID(job.id), lock=True)
            assert locked is not None
            # Only an agent reports `printing`, and never of a queued job.
            await change_state(session, locked, "printing", Actor.SYSTEM, clock.now())
    assert refused.value.code == "conflict"
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued"]
    assert await stack.outbox_rows(job.id) == rows_before


async def test_an_allowed_transition_stamps_records_and_publishes_together(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    at = clock.now()
    async with stack.db.transaction() as session:
        locked = await repository.get_job(session, scope, uuid.UUID(job.id), lock=True)
        assert locked is not None
        await change_state(session, locked, "sent", Actor.SYSTEM, at)
    async with stack.db.read() as session:
        stored = await repository.get_job(session, scope, uuid.UUID(job.id))
    assert stored is not None and (stored.state, stored.sent_at) == ("sent", at)
    changes = await stack.state_changes(job.id)
    assert [(c.state, c.actor, c.created_at) for c in changes][-1] == ("sent", "system", at)
    events = [r.payload for r in await stack.outbox_rows(job.id) if r.payload["type"].startswith("printjob.")]
    assert events[-1]["type"] == "printjob.sent"
    assert events[-1]["data"]["state"] == "sent"
