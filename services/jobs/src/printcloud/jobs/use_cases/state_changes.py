"""The one way a job changes state, whoever asks: the API (cancel), the agent (its reports), the
delivery claim, a failed URL fetch and the timers all call `change_state`, inside the driver
transaction that locked the job. So the rule (`domain.states`), the timestamp, the state-change
row and the `printjob.<state>` event can never disagree, and a job that ends is counted once
(`finished_jobs`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from printcloud.contracts.enums import Actor
from printcloud.contracts.errors import ApiError
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.outbox import outbox_row
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.jobs.domain import events, states
from printcloud.jobs.domain.job import Job
from printcloud.jobs.persistence import repository
from printcloud.jobs.persistence.tables import outbox
from printcloud.jobs.use_cases.finished_jobs import count_when_committed


def state_changed(job: Job) -> dict[str, Any]:
    """The outbox row of the `printjob.<state>` event of the state `job` is now in, on the topic
    recorded on the job. Jobs are created with none (the domain events' topic) until every release
    that may run beside this one sends a job's events where its row says (docs/upgrades.md)."""
    return outbox_row(job.events_topic or DOMAIN_EVENTS, str(job.id), events.state_changed(job))


def to_agent(job: Job, command: Message) -> dict[str, Any]:
    """The outbox row of a command for the job's agent."""
    return outbox_row(AGENT_COMMANDS, str(job.computer_id), command)


def refusal(job: Job, target: str, actor: Actor) -> ApiError | None:
    """`409 conflict` when the state machine does not let `actor` move `job` to `target`."""
    if states.may_transition(job.state, target, actor):
        return None
    return ApiError("conflict", f"The job is `{job.state}`; it cannot become `{target}`.")


async def change_state(
    transaction: DriverTransaction,
    job: Job,
    target: str,
    actor: Actor,
    at: datetime,
    message: str | None = None,
    *,
    also: Mapping[str, Any] | None = None,
    commands: Sequence[str] = (),
) -> None:
    """Moves the locked `job` to `target` for `actor` at `at`; `409 conflict` when the state
    machine does not allow it. Callers with an answer of their own for a refusal (cancel's
    `not_cancellable`, a claim's `claimed: false`) check `states.may_transition` first.

    `also` are other fields of the job that change with its state (field: value); `commands` the
    agent commands (`agent_commands.JOB_*`) the change sends. The job's changed columns, its
    state-change row, its event and the commands are one statement."""
    if (refused := refusal(job, target, actor)) is not None:
        raise refused
    changes = {"state": target, **(also or {})}
    stamp = states.timestamp_field(target)
    if stamp is not None:
        changes[stamp] = at
    for field, value in changes.items():
        setattr(job, field, value)
    rows = [state_changed(job), *(to_agent(job, events.agent_command(job, command)) for command in commands)]
    repository.change_job(transaction, job.id, changes, repository.state_change_row(job, message, actor, at), rows)
    if states.is_terminal(target):
        count_when_committed(transaction, job)


async def send_to_agent(transaction: DriverTransaction, job: Job, command: Message) -> None:
    """Queues an agent command in the transaction of the change that calls for it."""
    await outbox.add_all(transaction, [to_agent(job, command)])
