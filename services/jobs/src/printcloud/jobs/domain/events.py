"""What jobs publishes: the `printjob.<state>` domain event and the agent commands, and the
`PrintJob` message that the event's data, a create's stored answer and every response share, so
a webhook's data is exactly what `GET /v1/printjobs/{id}` returns."""

from __future__ import annotations

import dataclasses
import json
import uuid
from datetime import datetime
from typing import Any

from google.protobuf.descriptor import Descriptor

from printcloud.contracts import representations
from printcloud.core.kafka import agent_commands
from printcloud.core.kafka.envelope import Message
from printcloud.core.timeutil import isoformat
from printcloud.jobs.domain.capabilities import join_messages
from printcloud.jobs.domain.job import Job
from printcloud.v1 import jobs_pb2


def present(**fields: Any) -> dict[str, Any]:
    """The fields that have a value: proto3 `optional` fields must be left unset, not set to None."""
    return {name: value for name, value in fields.items() if value is not None}


# The message's fields are the job's own, by name, so a new field of both is carried with no line
# here; a `*_json` field carries the job's value of that name as JSON text.
def counterparts(message: Descriptor, facts: type[Any]) -> tuple[tuple[str, str, bool], ...]:
    """(message field, attribute, as JSON) for each field of `message`; a field with no attribute
    of that name on the dataclass `facts` is refused, at import for the published job."""
    attributes = {field.name for field in dataclasses.fields(facts)}
    pairs = tuple(
        (field.name, field.name.removesuffix("_json"), field.name.endswith("_json")) for field in message.fields
    )
    missing = [attribute for _, attribute, _ in pairs if attribute not in attributes]
    if missing:
        raise TypeError(f"{message.name} fields with no counterpart on {facts.__name__}: {', '.join(missing)}")
    return pairs


_PUBLISHED = counterparts(jobs_pb2.PrintJob.DESCRIPTOR, Job)


def _wire(value: Any) -> Any:
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return isoformat(value)
    return value


def published_job(job: Job, waiting: str | None = None) -> jobs_pb2.PrintJob:
    """`waiting` (a read's note on the printer the job waits for) joins its `stateMessage`."""
    fields = {
        name: json.dumps(getattr(job, attribute)) if as_json else _wire(getattr(job, attribute))
        for name, attribute, as_json in _PUBLISHED
    }
    fields["state_message"] = join_messages(job.state_message, waiting)
    return jobs_pb2.PrintJob(**present(**fields))


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
