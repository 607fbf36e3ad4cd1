"""What jobs publishes: the `printjob.<state>` domain event and the agent commands, and the
`PrintJob` message that the event's data, a create's stored answer and every response share, so
a webhook's data is exactly what `GET /v1/printjobs/{id}` returns."""

from __future__ import annotations

import dataclasses
from typing import Any

from printcloud.contracts import representations
from printcloud.core.kafka import agent_commands
from printcloud.core.kafka.envelope import Message
from printcloud.core.rpc.by_name import ByName
from printcloud.jobs.domain.capabilities import join_messages
from printcloud.jobs.domain.job import Job
from printcloud.v1 import jobs_pb2


def present(**fields: Any) -> dict[str, Any]:
    """The fields that have a value: proto3 `optional` fields must be left unset, not set to None."""
    return {name: value for name, value in fields.items() if value is not None}


# The message is the job's fields by name: a field both gain needs no line here.
_PUBLISHED = ByName(jobs_pb2.PrintJob, (field.name for field in dataclasses.fields(Job)), "Job")


def published_job(job: Job, waiting: str | None = None) -> jobs_pb2.PrintJob:
    """`waiting` (a read's note on the printer the job waits for) joins its `stateMessage`."""
    return _PUBLISHED.message(job, state_message=join_messages(job.state_message, waiting))


def state_changed(job: Job) -> Message:
    return Message(
        type=f"printjob.{job.state}",
        organization_id=str(job.organization_id),
        mode=job.mode,
        data=representations.print_job(published_job(job)),
    )


def agent_command(job: Job, command: str, resend_of: int | None = None) -> Message:
    """A command for the job's agent (`agent_commands.JOB_DELIVER`, `JOB_CANCEL`)."""
    data = agent_commands.JobCommand(computer_id=str(job.computer_id), job_id=str(job.id), resend_of=resend_of)
    return agent_commands.command(command, str(job.organization_id), job.mode, data)
