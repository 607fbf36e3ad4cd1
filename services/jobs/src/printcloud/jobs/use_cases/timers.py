"""The job timers use case: fires every due timer once (see `domain/timers.py`).

Each call is one transaction: the due jobs are locked (skipping those another dispatcher replica
holds), and each one's state change, state-change row, events and agent commands are written
together. A crash before the commit leaves the timers due for the next call; after it they are
no longer due. So no timer is lost or fired twice, whatever restarts or runs beside it.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.messages import Message
from printcloud.core.topics import AGENT_COMMANDS
from printcloud.jobs.domain import states
from printcloud.jobs.domain.states import Actor
from printcloud.jobs.domain.timers import SPOOLER_TIMEOUT_MESSAGE, JobClock, TimerAction, TimerPolicy, due_action
from printcloud.jobs.persistence import timers as timer_queries
from printcloud.jobs.persistence.records import JobRecord
from printcloud.jobs.persistence.tables import outbox, print_jobs

# Private helpers of the service reused so that a timer's change is recorded exactly like any other.
from printcloud.jobs.service import JobService, _now

REQUEUE_MESSAGE = "not acknowledged after {resends} resends"


async def _send_command(session: AsyncSession, job: JobRecord, command: str, **extra: object) -> None:
    data = {"computerId": str(job.computer_id), "jobId": str(job.id), **extra}
    message = Message(type=command, organization_id=str(job.organization_id), mode=job.mode, data=data)
    await outbox.add(session, AGENT_COMMANDS, str(job.computer_id), message)


async def fire_due_timers(
    jobs: JobService, policy: TimerPolicy, limit: int, now: datetime | None = None
) -> Counter[TimerAction]:
    """Fires the timers due at `now` (default: the current time) of at most `limit` jobs."""
    at = now or _now()
    fired: Counter[TimerAction] = Counter()
    async with jobs.db.transaction() as session:
        clocks = await timer_queries.lock_due(session, policy, at, limit)
        if not clocks:
            return fired
        # Already locked above, by this transaction.
        loaded = (await session.execute(select(JobRecord).where(print_jobs.c.id.in_([c.id for c in clocks])))).scalars()
        records = {job.id: job for job in loaded}
        for clock in clocks:
            action = due_action(
                JobClock(
                    state=clock.state,
                    expires_at=clock.expires_at,
                    sent_at=clock.sent_at,
                    last_resent_at=clock.last_resent_at,
                    resend_count=clock.resend_count,
                    printing_at=clock.printing_at,
                ),
                policy,
                at,
            )
            if action is not None:
                await _fire(jobs, session, records[clock.id], action, policy, at)
                fired[action] += 1
    return fired


async def _fire(
    jobs: JobService, session: AsyncSession, job: JobRecord, action: TimerAction, policy: TimerPolicy, now: datetime
) -> None:
    if action is TimerAction.RESEND:
        # No state change: the job stays `sent` and goes out again (spec: sent -> sent).
        await timer_queries.record_resend(session, job.id, now)
        # `resendOf` lets the agent-gateway claim a job that is already `sent`, once for this send
        # count; a plain job.deliver only claims a queued one, so a late creation command does not
        # send it twice.
        await _send_command(session, job, "job.deliver", resendOf=job.send_count)
    elif action is TimerAction.REQUEUE:
        await timer_queries.reset_resends(session, job.id)
        message = REQUEUE_MESSAGE.format(resends=policy.max_resends)
        await jobs._move(session, job, states.QUEUED, Actor.SYSTEM, message)
    elif action is TimerAction.SPOOLER_TIMEOUT:
        job.state_message = SPOOLER_TIMEOUT_MESSAGE
        await jobs._move(session, job, states.ERROR, Actor.SYSTEM, SPOOLER_TIMEOUT_MESSAGE)
    elif action is TimerAction.EXPIRE:
        was_sent = job.state == states.SENT
        await timer_queries.reset_resends(session, job.id)
        await jobs._move(session, job, states.EXPIRED, Actor.SYSTEM)
        if was_sent:
            # The agent may hold the job without having acknowledged it: it must not print it now.
            await _send_command(session, job, "job.cancel")
