"""The commands of `printcloud.agent-commands` (`topics.AGENT_COMMANDS`): their types and the data
each carries, for the services that publish them (jobs, devices) and the agent-gateway that acts
on them. The data names things as the agent protocol does: snake_case here, camelCase on the wire.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator
from pydantic.alias_generators import to_camel

from printcloud.core.kafka.envelope import Message

JOB_DELIVER = "job.deliver"
JOB_CANCEL = "job.cancel"
COMPUTER_DISCONNECT = "computer.disconnect"


class ComputerCommand(BaseModel):
    """What every command carries: the computer whose agent it is for. Nothing is coerced (an id
    that is no string is refused) and data a reader does not know is ignored."""

    model_config = ConfigDict(
        alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, frozen=True, strict=True
    )

    computer_id: str


class JobCommand(ComputerCommand):
    """`job.deliver` and `job.cancel`. A `resend_of` send count lets the agent-gateway claim a job
    that is already `sent` once more, for that send."""

    job_id: str
    resend_of: int | None = None

    @field_validator("resend_of", mode="before")
    @classmethod
    def _count_or_nothing(cls, value: Any) -> Any:
        """A count that is no integer is read as none, rather than losing the command."""
        return value if type(value) is int else None


def command(command_type: str, organization_id: str, mode: str, data: ComputerCommand) -> Message:
    """The message of a command; fields left unset are left out of its data."""
    return Message(
        type=command_type,
        organization_id=organization_id,
        mode=mode,
        data=data.model_dump(mode="json", by_alias=True, exclude_none=True),
    )
