"""Job timers: the pure rule, and firing against the real database with the clock injected."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.kafka.topics import AGENT_COMMANDS
from printcloud.jobs.domain.timers import JobClock, TimerAction, TimerPolicy, due_action
from printcloud.jobs.use_cases.timers import JobTimers
from printcloud.v1 import common_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

POLICY = TimerPolicy(resend_after=timedelta(seconds=60), max_resends=3, spooler_timeout=timedelta(minutes=15))
SHORT = TimerPolicy(resend_after=timedelta(seconds=5), max_resends=1, spooler_timeout=timedelta(seconds=30))
T0 = datetime(2030, 1, 1, tzinfo=UTC)


def clock(
    state: str,
    *,
    expires_at: datetime = T0 + timedelta(days=1),
    sent_at: datetime | None = None,
    last_resent_at: datetime | None = None,
    resend_count: int = 0,
    printing_at: datetime | None = None,
) -> JobClock:
    return JobClock(state, expires_at, sent_at, last_resent_at, resend_count, printing_at)


@pytest.mark.parametrize(
    ("job", "now", "expected"),
    [
        (clock("sent", sent_at=T0), T0 + timedelta(seconds=59), None),
        (clock("sent", sent_at=T0), T0 + timedelta(seconds=60), TimerAction.RESEND),
        (clock("sent", sent_at=T0, last_resent_at=T0 + timedelta(seconds=60), resend_count=1),
         T0 + timedelta(seconds=119), None),
        (clock("sent", sent_at=T0, last_resent_at=T0 + timedelta(seconds=180), resend_count=3),
         T0 + timedelta(seconds=240), TimerAction.REQUEUE),
        (clock("printing", printing_at=T0), T0 + timedelta(minutes=15), TimerAction.SPOOLER_TIMEOUT),
        (clock("printing", printing_at=T0), T0 + timedelta(minutes=14), None),
        (clock("queued", expires_at=T0), T0, TimerAction.EXPIRE),
        # Expiry wins over a resend due at the same time.
        (clock("sent", sent_at=T0, expires_at=T0 + timedelta(seconds=60)), T0 + timedelta(seconds=60),
         TimerAction.EXPIRE),
        # Received or printing jobs do not expire; finished jobs have no timers.
        (clock("received", expires_at=T0), T0 + timedelta(days=2), None),
        (clock("printing", expires_at=T0, printing_at=T0 + timedelta(days=1)), T0 + timedelta(days=1), None),
        (clock("done", expires_at=T0, printing_at=T0), T0 + timedelta(days=2), None),
    ],
)  # fmt: skip
def test_due_action(job: JobClock, now: datetime, expected: TimerAction | None) -> None:
    assert due_action(job, POLICY, now) == expected


async def _fire_all(stack: Stack, now: datetime, policy: TimerPolicy = POLICY) -> Counter[TimerAction]:
    timers = JobTimers(stack.db, policy)
    total: Counter[TimerAction] = Counter()
    while fired := await timers.fire_due(1000, now):
        total += fired
    return total


async def _sent(stack: Stack) -> jobs_pb2.PrintJob:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    claim = jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id)
    assert (await rpc.call(stack.jobs.ClaimDelivery, claim)).claimed
    return await rpc.call(stack.jobs.GetJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id))


def _at(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


async def test_resends_then_requeue_each_fire_once(stack: Stack) -> None:
    job = await _sent(stack)
    sent_at = _at(job.sent_at)

    async def delivers() -> int:
        rows = await stack.outbox_rows(job.id)
        return len([r for r in rows if r.topic == AGENT_COMMANDS and r.payload["type"] == "job.deliver"])

    first_delivers = await delivers()
    for n in range(1, 4):
        now = sent_at + n * timedelta(seconds=60)
        await _fire_all(stack, now)
        await _fire_all(stack, now)  # nothing left to fire at the same instant
        assert await delivers() == first_delivers + n
        resend = (await stack.outbox_rows(job.id))[-1].payload
        assert resend["data"]["resendOf"] == n, "each resend names the send count it may claim once"
        claim = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id, resend_of=n)
        assert (await rpc.call(stack.jobs.ClaimDelivery, claim)).claimed
    await _fire_all(stack, sent_at + timedelta(seconds=240))
    changes = await stack.state_changes(job.id)
    assert [(c.state, c.actor) for c in changes] == [("queued", "api"), ("sent", "system"), ("queued", "system")]
    assert changes[-1].message == "not acknowledged after 3 resends"


async def test_concurrent_firing_fires_each_timer_once(stack: Stack) -> None:
    jobs = [await _sent(stack) for _ in range(5)]
    now = max(_at(j.sent_at) for j in jobs) + timedelta(days=2)  # past their expiry
    await asyncio.gather(*(_fire_all(stack, now) for _ in range(4)))
    for job in jobs:
        changes = await stack.state_changes(job.id)
        assert [c.state for c in changes] == ["queued", "sent", "expired"]
        cancels = [r for r in await stack.outbox_rows(job.id) if r.payload["type"] == "job.cancel"]
        assert len(cancels) == 1, "the agent is told to drop an expired job it may hold"


async def test_a_job_printing_too_long_ends_in_spooler_timeout(stack: Stack) -> None:
    job = await _sent(stack)
    for state in ("received", "printing"):
        printing = await rpc.call(
            stack.jobs.ReportJobState,
            jobs_pb2.ReportJobStateRequest(computer_id=job.computer_id, job_id=job.id, state=state),
        )
    await _fire_all(stack, _at(printing.printing_at) + timedelta(minutes=15))
    scope = common_pb2.Scope(organization_id=job.organization_id, mode=job.mode)
    failed = await rpc.call(stack.jobs.GetJob, jobs_pb2.GetJobRequest(scope=scope, id=job.id))
    assert (failed.state, failed.state_message) == ("error", "spooler timeout")


@pytest.mark.parametrize("limit", [0, -1, 1001])
async def test_the_rpc_checks_its_limit(stack: Stack, limit: int) -> None:
    with pytest.raises(ApiError) as refused:
        await rpc.call(stack.jobs.FireDueTimers, jobs_pb2.FireDueTimersRequest(limit=limit))
    assert refused.value.code == "invalid_request"


async def test_the_policy_is_the_services_own(stack: Stack) -> None:
    """The caller only triggers: a shorter policy of the service fires where the spec's would not."""
    job = await _sent(stack)
    early = _at(job.sent_at) + timedelta(seconds=30)
    assert await _fire_all(stack, early) == Counter()
    assert await _fire_all(stack, early, SHORT) == Counter({TimerAction.RESEND: 1})
    later = early + timedelta(seconds=5)
    assert await _fire_all(stack, later, SHORT) == Counter({TimerAction.REQUEUE: 1})
    changes = await stack.state_changes(job.id)
    assert changes[-1].message == "not acknowledged after 1 resends"
