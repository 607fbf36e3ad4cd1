"""Pushing jobs to a connected agent: on a `job.deliver` command, and for every job still queued
when an agent connects to this replica."""

from __future__ import annotations

import logging
import time
from urllib.parse import quote

from opentelemetry.trace import SpanKind

from printcloud.agent_gateway.domain.file_tokens import ComputerScope, mint_token
from printcloud.agent_gateway.transport.connection import AgentConnection
from printcloud.agent_gateway.transport.context import GatewayContext
from printcloud.agent_gateway.transport.wire import job_message
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.core.telemetry import carrier_headers, tracer
from printcloud.v1 import jobs_pb2

log = logging.getLogger(__name__)


class JobDeliveries:
    def __init__(self, context: GatewayContext) -> None:
        self.context = context

    async def deliver(self, connection: AgentConnection, job_id: str, *, resend_of: int | None = None) -> None:
        """Pushes the job if jobs lets this push claim it: a queued job, or with `resend_of` (the
        resend timer's send count) a sent one not pushed again since.

        Raises `ApiError` only for a failure worth retrying (the jobs service unavailable).
        """
        request = jobs_pb2.ClaimDeliveryRequest(computer_id=connection.computer_id, job_id=job_id, resend_of=resend_of)
        try:
            # Claimed (and recorded `sent`) before the push, so the agent's `received` can never
            # arrive before `sent` is recorded.
            claim: jobs_pb2.ClaimDeliveryResponse = await rpc.call(self.context.jobs.ClaimDelivery, request)
            if not claim.claimed:
                return  # pushed by another path, cancelled, expired, or with the agent
        except ApiError as error:
            if error.status >= 500:
                raise
            log.info("job not delivered", extra={"job_id": job_id, "code": error.code})
            return
        with tracer().start_as_current_span(
            "send job to agent", kind=SpanKind.PRODUCER, attributes={"printcloud.job_id": job_id}
        ):
            traceparent = carrier_headers().get("traceparent", "")
            path = self._download_path(connection.computer, job_id)
            sent = connection.send(job_message(claim.delivery, path, traceparent))
        if not sent:
            # The job stays `sent`: the dispatcher's resend timer sends it again.
            log.info("agent left before the job reached it", extra={"job_id": job_id})
            return
        log.info("job sent to agent", extra={"job_id": job_id, "computer_id": connection.computer_id})

    async def deliver_pending(self, connection: AgentConnection) -> None:
        """Sends the computer's queued jobs, oldest first, to its new connection.

        Done by the replica that holds the connection, after registering it: a job created from
        then on reaches it through its own `job.deliver`, and one created before is listed here,
        whichever replica the agent connected to before and whether or not its state changed.
        """
        request = jobs_pb2.ListPendingJobsRequest(computer_id=connection.computer_id)
        pending: jobs_pb2.JobDeliveryList = await rpc.call(self.context.jobs.ListPendingJobs, request)
        for job in pending.items:
            await self.deliver(connection, job.job_id)
        if pending.items:
            log.info("queued jobs sent to a new connection", extra={"jobs": len(pending.items)})

    def _download_path(self, computer: ComputerScope, job_id: str) -> str:
        expires_at = int(time.time()) + self.context.file_token_ttl_seconds
        token = mint_token(self.context.file_token_secret, job_id, computer, expires_at)
        return f"/agent/v1/jobs/{quote(job_id, safe='')}/file?token={quote(token, safe='')}"
