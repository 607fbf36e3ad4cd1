"""Agent commands from Kafka (`printcloud.agent-commands`), acted on for the computers whose
WebSocket this replica holds; every replica sees every command."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.core.kafka.agent_commands import (
    COMPUTER_DISCONNECT,
    JOB_CANCEL,
    JOB_DELIVER,
    ComputerCommand,
    JobCommand,
)
from printcloud.core.kafka.envelope import Message

log = logging.getLogger(__name__)


class AgentCommandEventsHandler:
    """A `printcloud.core.kafka.bus.Consumer` handler."""

    def __init__(self, agents: Agents, jobs: AgentJobs) -> None:
        self.agents = agents
        self.jobs = jobs

    async def __call__(self, message: Message) -> None:
        """Raises only for a failure worth retrying (a backing service unavailable)."""
        try:
            target = ComputerCommand.model_validate(message.data)
        except ValidationError:
            return
        connection = self.agents.registry.get(target.computer_id)
        if connection is None:
            return
        if message.type == COMPUTER_DISCONNECT:
            await self.agents.disconnect(connection)
            return
        try:
            command = JobCommand.model_validate(message.data)
        except ValidationError:
            log.error("command without a jobId skipped", extra={"message_id": message.id, "type": message.type})
            return
        if message.type == JOB_DELIVER:
            await self.jobs.deliver(connection, command.job_id, resend_of=command.resend_of)
        elif message.type == JOB_CANCEL:
            self.jobs.cancel(connection, command.job_id)
