"""Agent commands from Kafka (`printcloud.agent-commands`), acted on for the computers whose
WebSocket this replica holds; every replica sees every command."""

from __future__ import annotations

import logging
import time
from urllib.parse import quote

from printcloud.agent.protocol import CLOSE_COMPUTER_DISABLED, JOB_CANCEL
from printcloud.agent_gateway.domain.file_tokens import mint_token
from printcloud.agent_gateway.transport.connection import AgentConnection
from printcloud.agent_gateway.transport.context import GatewayContext
from printcloud.agent_gateway.transport.wire import job_message
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.core.messages import Message
from printcloud.v1 import jobs_pb2

log = logging.getLogger(__name__)

JOB_DELIVER = "job.deliver"
JOB_CANCEL_COMMAND = "job.cancel"
COMPUTER_DISCONNECT = "computer.disconnect"
_DELIVERABLE_STATES = frozenset({"queued", "sent"})


class AgentCommands:
    def __init__(self, context: GatewayContext) -> None:
        self.context = context

    async def handle(self, message: Message) -> None:
        """Raises only for a failure worth retrying (a backing service unavailable)."""
        computer_id = message.data.get("computerId")
        connection = self.context.registry.get(computer_id) if isinstance(computer_id, str) else None
        if connection is None:
            return
        job_id = message.data.get("jobId")
        if message.type == COMPUTER_DISCONNECT:
            await connection.close(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted")
        elif not isinstance(job_id, str):
            log.error("command without a jobId skipped", extra={"message_id": message.id, "type": message.type})
        elif message.type == JOB_DELIVER:
            await self._deliver(connection, job_id)
        elif message.type == JOB_CANCEL_COMMAND:
            await connection.send({"type": JOB_CANCEL, "jobId": job_id})

    async def _deliver(self, connection: AgentConnection, job_id: str) -> None:
        request = jobs_pb2.AgentJobRequest(computer_id=connection.computer_id, job_id=job_id)
        try:
            delivery: jobs_pb2.JobDelivery = await rpc.call(self.context.jobs.GetDelivery, request)
            if delivery.state not in _DELIVERABLE_STATES:
                return  # cancelled, expired, or already with the agent
            # Marked first, so the agent's `received` can never arrive before `sent` is recorded.
            await rpc.call(self.context.jobs.MarkJobSent, request)
        except ApiError as error:
            if error.status >= 500:
                raise
            log.info("job not delivered", extra={"job_id": job_id, "code": error.code})
            return
        if not await connection.send(job_message(delivery, self._download_path(connection.computer_id, job_id))):
            # The job stays `sent`; the jobs service resends it, or the dispatcher on reconnection.
            log.info("agent left before the job reached it", extra={"job_id": job_id})
            return
        log.info("job sent to agent", extra={"job_id": job_id, "computer_id": connection.computer_id})

    def _download_path(self, computer_id: str, job_id: str) -> str:
        expires_at = int(time.time()) + self.context.file_token_ttl_seconds
        token = mint_token(self.context.file_token_secret, job_id, computer_id, expires_at)
        return f"/agent/v1/jobs/{quote(job_id, safe='')}/file?token={quote(token, safe='')}"
