"""A push's claim on a job: whether this push may send the job to its agent, decided and recorded
under the job's row lock, so that of the pushes that race for one job exactly one goes through."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from opentelemetry.trace import SpanKind

from printcloud.contracts.enums import Actor
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.telemetry.traces import activate_carrier
from printcloud.jobs.domain import states
from printcloud.jobs.domain.job import Job
from printcloud.jobs.persistence import repository
from printcloud.jobs.use_cases import clock
from printcloud.jobs.use_cases.state_changes import change_state

# Files are stored in pieces of this size; a claimed job carries its file only when it is one piece.
FILE_CHUNK_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Claim:
    """A push's claim: whether it may send the job, the job, and the job's file when it is small
    enough to travel inside the job's message."""

    claimed: bool
    job: Job
    content: bytes | None = None


@dataclass(frozen=True)
class DeliveryClaim:
    """A push's request to send a job to its agent, as the agent-gateway forwards it: a first push,
    or with `resend_of` the resend timer's push numbered by the send count it saw."""

    computer_id: uuid.UUID
    job_id: uuid.UUID
    resend_of: int | None = None
    content_up_to: int = 0
    trace: Mapping[str, str] = field(default_factory=dict)


async def claim_all(transaction: DriverTransaction, claims: Sequence[DeliveryClaim]) -> list[Claim | None]:
    """The claims decided and recorded in `transaction`, in order, each None when its computer has
    no such job. The jobs are read and locked by one statement (with their files, from one chunk;
    larger files download), so the changes the claims make go to the database together."""
    content_up_to = min(max((wanted.content_up_to for wanted in claims), default=0), FILE_CHUNK_BYTES)
    locked = await repository.lock_claimed_jobs(
        transaction, sorted({wanted.job_id for wanted in claims}), content_up_to
    )
    decided: list[Claim | None] = []
    for wanted in claims:
        job, content = locked.get(wanted.job_id, (None, None))
        if job is None or job.computer_id != wanted.computer_id:
            decided.append(None)
            continue
        if content is not None and job.file_size > wanted.content_up_to:
            content = None  # read for another claim of the batch that takes larger files
        with _traced(wanted):
            decided.append(await _claim(transaction, wanted, job, content))
    return decided


def _traced(wanted: DeliveryClaim) -> AbstractContextManager[object]:
    """A batch's claim's change and event carry the claim's own trace, not the batch's; a claim
    that brings none (a single call's) stays in the call's."""
    return activate_carrier(wanted.trace, "claim job delivery", SpanKind.INTERNAL) if wanted.trace else nullcontext()


async def _claim(transaction: DriverTransaction, wanted: DeliveryClaim, job: Job, content: bytes | None) -> Claim:
    """`wanted` decided on its locked `job`, as earlier claims of the batch left it."""
    if wanted.resend_of is None and states.may_transition(job.state, states.SENT, Actor.system):
        await change_state(
            transaction, job, states.SENT, Actor.system, clock.now(), also={"send_count": job.send_count + 1}
        )
        return Claim(True, job, content)
    if wanted.resend_of is not None and job.state == states.SENT and job.send_count == wanted.resend_of:
        # A resend: the state is unchanged, so no state-change row and no event.
        job.send_count += 1
        repository.change_job(transaction, job.id, {"send_count": job.send_count})
        return Claim(True, job, content)
    return Claim(False, job)
