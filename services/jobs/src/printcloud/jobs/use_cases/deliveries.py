"""A push's claim on a job: whether this push may send the job to its agent, decided and recorded
under the job's row lock, so that of the pushes that race for one job exactly one goes through."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

from printcloud.contracts.enums import Actor
from printcloud.core.db.driver_transaction import DriverTransaction
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


async def claim(transaction: DriverTransaction, wanted: DeliveryClaim) -> Claim | None:
    """The claim decided and recorded in `transaction`; None when the computer has no such job."""
    # The file is read by the lock's own statement, from one chunk (larger files download).
    locked = await repository.lock_claimed_job(
        transaction, wanted.computer_id, wanted.job_id, min(wanted.content_up_to, FILE_CHUNK_BYTES)
    )
    if locked is None:
        return None
    job, content = locked
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
