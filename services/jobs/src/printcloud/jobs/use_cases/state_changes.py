"""The one way a job changes state, whoever asks: the API (cancel), the agent (its reports), the
delivery claim, a failed URL fetch and the timers all call `change_state`, inside the transaction
that locked the job. So the rule (`domain.states`), the timestamp, the state-change row and the
`printjob.<state>` event can never disagree, and a job that ends is counted once
(`finished_jobs`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.enums import Actor
from printcloud.contracts.errors import ApiError
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.jobs.domain import events, states
from printcloud.jobs.domain.job import Job
from printcloud.jobs.persistence import repository
from printcloud.jobs.persistence.tables import outbox
from printcloud.jobs.use_cases.finished_jobs import count_when_committed


async def record_state(session: AsyncSession, job: Job, actor: Actor, at: datetime, message: str | None = None) -> None:
    """Records the state `job` is now in: its state-change row and its `printjob.<state>` event.
    Only `change_state` and a job's creation (its first state) call it."""
    await repository.add_state_change(session, job, message, actor, at)
    await outbox.add(session, DOMAIN_EVENTS, str(job.id), events.state_changed(job))


def refusal(job: Job, target: str, actor: Actor) -> ApiError | None:
    """`409 conflict` when the state machine does not let `actor` move `job` to `target`."""
    if states.may_transition(job.state, target, actor):
        return None
    return ApiError("conflict", f"The job is `{job.state}`; it cannot become `{target}`.")


async def change_state(
    session: AsyncSession, job: Job, target: str, actor: Actor, at: datetime, message: str | None = None
) -> None:
    """Moves the locked `job` to `target` for `actor` at `at`; `409 conflict` when the state
    machine does not allow it. Callers with an answer of their own for a refusal (cancel's
    `not_cancellable`, a claim's `claimed: false`) check `states.may_transition` first."""
    if (refused := refusal(job, target, actor)) is not None:
        raise refused
    job.state = target
    stamp = states.timestamp_field(target)
    if stamp is not None:
        setattr(job, stamp, at)
    await record_state(session, job, actor, at, message)
    if states.is_terminal(target):
        count_when_committed(session, job)


async def send_to_agent(session: AsyncSession, job: Job, command: Message) -> None:
    """Queues an agent command in the transaction of the change that calls for it."""
    await outbox.add(session, AGENT_COMMANDS, str(job.computer_id), command)
