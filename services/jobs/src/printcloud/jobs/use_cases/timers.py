"""The job timers use case: fires every due timer once (the rule: `domain/timers.py`).

Each call is one transaction: the due jobs are locked (skipping those a concurrent call holds),
and each one's state change, state-change row, events and agent commands are written together.
A crash before the commit leaves the timers due for the next call; after it they are no longer
due. So no timer is lost or fired twice, whatever restarts or runs beside it.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from printcloud.contracts.enums import Actor
from printcloud.core.db.database import Database
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.kafka import agent_commands
from printcloud.jobs.domain import events, states
from printcloud.jobs.domain.job import Job
from printcloud.jobs.domain.timers import SPOOLER_TIMEOUT_MESSAGE, TimerAction, TimerPolicy, due_action, requeue_message
from printcloud.jobs.persistence import timers as timer_queries
from printcloud.jobs.use_cases import clock
from printcloud.jobs.use_cases.state_changes import change_state, send_to_agent


class JobTimers:
    def __init__(self, db: Database, policy: TimerPolicy) -> None:
        self.db = db
        self.policy = policy

    async def fire_due(self, limit: int, now: datetime | None = None) -> Counter[TimerAction]:
        """Fires the timers due at `now` (default: the current time) of at most `limit` jobs."""
        at = now or clock.now()
        fired: Counter[TimerAction] = Counter()
        async with self.db.driver_transaction() as transaction:
            for job, job_clock in await timer_queries.lock_due(transaction, self.policy, at, limit):
                action = due_action(job_clock, self.policy, at)
                if action is not None:
                    await self._fire(transaction, job, action, at)
                    fired[action] += 1
        return fired

    async def _fire(self, transaction: DriverTransaction, job: Job, action: TimerAction, at: datetime) -> None:
        if action is TimerAction.RESEND:
            # No state change: the job stays `sent` and goes out again (spec: sent -> sent).
            await timer_queries.record_resend(transaction, job.id, at)
            # A resend count lets the agent-gateway claim a job that is already `sent`, once for this
            # send count; a plain job.deliver only claims a queued one, so a late creation command
            # does not send it twice.
            await send_to_agent(
                transaction, job, events.agent_command(job, agent_commands.JOB_DELIVER, resend_of=job.send_count)
            )
        elif action is TimerAction.REQUEUE:
            await timer_queries.reset_resends(transaction, job.id)
            await change_state(transaction, job, states.QUEUED, Actor.system, at, requeue_message(self.policy))
        elif action is TimerAction.SPOOLER_TIMEOUT:
            await change_state(
                transaction,
                job,
                states.ERROR,
                Actor.system,
                at,
                SPOOLER_TIMEOUT_MESSAGE,
                also={"state_message": SPOOLER_TIMEOUT_MESSAGE},
            )
        elif action is TimerAction.EXPIRE:
            # The agent may hold a `sent` job without having acknowledged it: it must not print it now.
            cancel = [agent_commands.JOB_CANCEL] if job.state == states.SENT else []
            await timer_queries.reset_resends(transaction, job.id)
            await change_state(transaction, job, states.EXPIRED, Actor.system, at, commands=cancel)
