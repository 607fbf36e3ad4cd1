"""Agent commands from Kafka (`printcloud.agent-commands`), acted on for the computers whose
WebSocket this replica holds; every replica sees every command."""

from __future__ import annotations

import logging

from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.core.kafka.envelope import Message

log = logging.getLogger(__name__)

JOB_DELIVER = "job.deliver"
JOB_CANCEL = "job.cancel"
COMPUTER_DISCONNECT = "computer.disconnect"


class AgentCommandEventsHandler:
    """A `printcloud.core.kafka.bus.Consumer` handler."""

    def __init__(self, agents: Agents, jobs: AgentJobs) -> None:
        self.agents = agents
        self.jobs = jobs

    async def __call__(self, message: Message) -> None:
        """Raises only for a failure worth retrying (a backing service unavailable)."""
        computer_id = message.data.get("computerId")
        connection = self.agents.registry.get(computer_id) if isinstance(computer_id, str) else None
        if connection is None:
            return
        job_id = message.data.get("jobId")
        if message.type == COMPUTER_DISCONNECT:
            await self.agents.disconnect(connection)
        elif not isinstance(job_id, str):
            log.error("command without a jobId skipped", extra={"message_id": message.id, "type": message.type})
        elif message.type == JOB_DELIVER:
            resend_of = message.data.get("resendOf")
            await self.jobs.deliver(connection, job_id, resend_of=resend_of if type(resend_of) is int else None)
        elif message.type == JOB_CANCEL:
            self.jobs.cancel(connection, job_id)
