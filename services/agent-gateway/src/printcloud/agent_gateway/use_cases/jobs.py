"""A job's way to an agent: its push, the agent's reports of its state, a cancel, and the
download of its file with the token the push carried. Each is a call to jobs (and to devices, for
a token's computer) and the decision about the answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote

from opentelemetry.trace import SpanKind

from printcloud.agent_gateway.domain.file_tokens import ComputerScope, mint_token, verify_token
from printcloud.agent_gateway.use_cases.agents import CLOSE_INTERNAL_ERROR, AgentLink, AgentRefused, Devices
from printcloud.contracts.errors import ApiError
from printcloud.core.telemetry.traces import activate_carrier, carrier_headers, tracer
from printcloud.protocol.constants import JOB_STATE, MAX_STATE_MESSAGE_CHARS
from printcloud.protocol.messages import Job, JobCancel, JobState

log = logging.getLogger(__name__)

DISABLED = "disabled"
_REVOKED = ApiError("forbidden", "The download token is no longer valid: its computer was deleted or disabled.")


@dataclass(frozen=True)
class JobFile:
    size: int
    chunks: AsyncIterator[bytes]


class Jobs(Protocol):
    """The jobs service, as the gateway calls it (`transport.jobs_client`); failures are `ApiError`."""

    async def report_job_state(self, computer_id: str, job_id: str, state: str, message: str | None) -> None: ...

    async def claim_delivery(self, computer_id: str, job_id: str, resend_of: int | None) -> Job | None:
        """The job when this push may claim it, its `download_path` left for the gateway to fill."""
        ...

    async def pending_jobs(self, computer_id: str) -> list[str]: ...

    async def read_job_file(self, computer_id: str, job_id: str) -> JobFile:
        """Raises the refusal of jobs before any byte is answered."""
        ...


@dataclass
class AgentJobs:
    jobs: Jobs
    devices: Devices
    file_token_secret: str
    file_token_ttl_seconds: int

    # --- what an agent reports -------------------------------------------------------------

    async def report_job_state(self, computer_id: str, report: JobState) -> None:
        message = report.message[:MAX_STATE_MESSAGE_CHARS] if report.message else None
        # An agent that got a `traceparent` with the job sends it back: the report joins the job's trace.
        carrier = {"traceparent": report.traceparent} if report.traceparent is not None else {}
        try:
            with activate_carrier(carrier, f"{JOB_STATE} {report.state}", SpanKind.SERVER):
                await self.jobs.report_job_state(computer_id, report.job_id, report.state, message)
        except ApiError as error:
            if error.status >= 500:
                # The agent reports the last state of its jobs again when it reconnects.
                raise AgentRefused(CLOSE_INTERNAL_ERROR, "job state not recorded; reconnect and report again") from None
            # A repeat or a late report (job cancelled, expired); nothing the agent can fix.
            extra = {"job_id": report.job_id, "state": report.state, "code": error.code}
            log.info("job state refused", extra=extra)

    # --- jobs to an agent ------------------------------------------------------------------

    async def deliver(self, connection: AgentLink, job_id: str, *, resend_of: int | None = None) -> None:
        """Pushes the job if jobs lets this push claim it: a queued job, or with `resend_of` (the
        resend timer's send count) a sent one not pushed again since.

        Raises `ApiError` only for a failure worth retrying (the jobs service unavailable).
        """
        computer = connection.computer
        try:
            # Claimed (and recorded `sent`) before the push, so the agent's `received` can never
            # arrive before `sent` is recorded.
            job = await self.jobs.claim_delivery(computer.computer_id, job_id, resend_of)
            if job is None:
                return  # pushed by another path, cancelled, expired, or with the agent
        except ApiError as error:
            if error.status >= 500:
                raise
            log.info("job not delivered", extra={"job_id": job_id, "code": error.code})
            return
        with tracer().start_as_current_span(
            "send job to agent", kind=SpanKind.PRODUCER, attributes={"printcloud.job_id": job_id}
        ):
            # The trace goes with the job: the agent echoes it on its download and its reports.
            traceparent = carrier_headers().get("traceparent") or None
            path = self._download_path(computer, job_id)
            sent = connection.send(job.model_copy(update={"download_path": path, "traceparent": traceparent}))
        if not sent:
            # The job stays `sent`: the dispatcher's resend timer sends it again.
            log.info("agent left before the job reached it", extra={"job_id": job_id})
            return
        log.info("job sent to agent", extra={"job_id": job_id, "computer_id": computer.computer_id})

    async def deliver_pending(self, connection: AgentLink) -> None:
        """Sends the computer's queued jobs, oldest first, to its new connection.

        Done by the replica that holds the connection, after registering it: a job created from
        then on reaches it through its own `job.deliver`, and one created before is listed here,
        whichever replica the agent connected to before and whether or not its state changed.
        """
        pending = await self.jobs.pending_jobs(connection.computer.computer_id)
        for job_id in pending:
            await self.deliver(connection, job_id)
        if pending:
            log.info("queued jobs sent to a new connection", extra={"jobs": len(pending)})

    def cancel(self, connection: AgentLink, job_id: str) -> None:
        connection.send(JobCancel(job_id=job_id))

    def _download_path(self, computer: ComputerScope, job_id: str) -> str:
        expires_at = int(time.time()) + self.file_token_ttl_seconds
        token = mint_token(self.file_token_secret, job_id, computer, expires_at)
        return f"/agent/v1/jobs/{quote(job_id, safe='')}/file?token={quote(token, safe='')}"

    # --- a job's file ----------------------------------------------------------------------

    async def job_file(self, job_id: str, token: str | None) -> JobFile:
        """The file a download token grants; `ApiError` for a missing, bad or revoked token, or a
        job whose file jobs does not serve (its state rule lives there alone)."""
        if not token:
            raise ApiError("unauthorized", "A download token is required.")
        grant = verify_token(self.file_token_secret, job_id, token, time.time())
        if grant is None:
            raise ApiError("forbidden", "The download token is invalid or expired.")
        await self._check_computer_active(grant.computer)
        return await self.jobs.read_job_file(grant.computer.computer_id, grant.job_id)

    async def _check_computer_active(self, computer: ComputerScope) -> None:
        """A token outlives nothing: its computer must still exist, enabled, when it is used."""
        try:
            state = await self.devices.computer_state(computer)
        except ApiError as error:
            if error.status != 404:
                raise
            raise _REVOKED from None
        if state == DISABLED:
            raise _REVOKED
