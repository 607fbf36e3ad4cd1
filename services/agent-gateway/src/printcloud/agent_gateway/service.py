"""The agent-gateway's use cases: an agent connecting, its reports, the commands for it, its file
downloads and this replica's heartbeat. Each is a call to devices or jobs and the decision about
the answer; the transport maps WebSocket frames, Kafka commands and HTTP requests to them.

The gateway owns no data: devices and jobs record everything, and what it holds is which agents
are connected to this replica (`registry`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import quote

from opentelemetry.trace import SpanKind

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.agent_gateway.domain.file_tokens import ComputerScope, mint_token, verify_token
from printcloud.agent_gateway.domain.registry import ConnectionRegistry
from printcloud.contracts.errors import ApiError
from printcloud.core import release
from printcloud.core.telemetry.traces import activate_carrier, carrier_headers, tracer
from printcloud.protocol.constants import (
    CLOSE_BAD_CREDENTIAL,
    CLOSE_COMPUTER_DISABLED,
    CLOSE_PROTOCOL_ERROR,
    CLOSE_REPLACED,
    JOB_STATE,
    MAX_STATE_MESSAGE_CHARS,
)
from printcloud.protocol.messages import Hello, Job, JobCancel, JobState, PrinterReport, Printers, Welcome
from printcloud.protocol.parsing import GatewayMessage

log = logging.getLogger(__name__)

# Standard close codes: the agent should come back later.
CLOSE_INTERNAL_ERROR = 1011
CLOSE_SERVICE_RESTART = 1012
CLOSE_TRY_AGAIN_LATER = 1013
DISABLED = "disabled"
# One heartbeat call per this many held agents: 10,000 agents are ten small calls a beat.
AGENTS_SEEN_PER_CALL = 1000
_REVOKED = ApiError("forbidden", "The download token is no longer valid: its computer was deleted or disabled.")


class AgentRefused(Exception):
    """Ends an agent's connection with a close code of protocol v1 and a reason for its operator."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class AgentLink(Protocol):
    """A connected agent, as the use cases see it (`transport.connection.AgentConnection`)."""

    computer: ComputerScope

    def send(self, message: GatewayMessage) -> bool: ...

    async def close(self, code: int, reason: str) -> None: ...


@dataclass(frozen=True)
class AgentIdentity:
    computer: ComputerScope
    disabled: bool


@dataclass(frozen=True)
class JobFile:
    size: int
    chunks: AsyncIterator[bytes]


class Devices(Protocol):
    """The devices service, as the gateway calls it (`transport.devices_client`); failures are `ApiError`."""

    async def authenticate_agent(self, credential: str) -> AgentIdentity: ...

    async def agent_connected(self, computer_id: str, hello: Hello, gateway_instance: str) -> None: ...

    async def agents_seen(self, computer_ids: Sequence[str]) -> None: ...

    async def agent_disconnected(self, computer_id: str, gateway_instance: str) -> None: ...

    async def report_printers(self, computer_id: str, printers: list[PrinterReport]) -> None: ...

    async def computer_state(self, computer: ComputerScope) -> str: ...

    async def gateway_heartbeat(self, gateway_instance: str) -> bool: ...


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
class AgentGatewayService:
    devices: Devices
    jobs: Jobs
    instance_id: str
    file_token_secret: str
    file_token_ttl_seconds: int
    heartbeat_seconds: float
    limits: AgentLimits = field(default_factory=AgentLimits)
    registry: ConnectionRegistry[AgentLink] = field(default_factory=ConnectionRegistry)
    # Agents between their connection and their welcome.
    connecting: int = 0

    # --- an agent's connection -------------------------------------------------------------

    def busy(self) -> bool:
        """Whether a new agent is to be told to come back later: past `limits.max_connecting`
        handshakes at once, each waits longer for devices, and in a reconnect storm handshakes
        that wait past the agents' timeout are lost work (docs/performance.md)."""
        return self.connecting >= self.limits.max_connecting

    async def authenticate(self, authorization: str) -> ComputerScope:
        scheme, _, credential = authorization.partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise AgentRefused(CLOSE_BAD_CREDENTIAL, "missing bearer credential")
        try:
            identity = await self.devices.authenticate_agent(credential.strip())
        except ApiError as error:
            if error.status in (401, 404):
                raise AgentRefused(CLOSE_BAD_CREDENTIAL, "invalid credential") from None
            if error.status == 403:
                raise AgentRefused(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted") from None
            raise AgentRefused(CLOSE_TRY_AGAIN_LATER, "authentication unavailable") from None
        if identity.disabled:
            raise AgentRefused(CLOSE_COMPUTER_DISABLED, "computer disabled")
        return identity.computer

    async def connect(self, computer_id: str, hello: Hello) -> None:
        try:
            await self.devices.agent_connected(computer_id, hello, self.instance_id)
        except ApiError as error:
            if error.status in (403, 404):
                raise AgentRefused(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted") from None
            if error.status < 500:
                raise AgentRefused(CLOSE_PROTOCOL_ERROR, error.message) from None
            raise AgentRefused(CLOSE_TRY_AGAIN_LATER, "devices unavailable") from None

    async def welcome(self, connection: AgentLink) -> bool:
        """Makes `connection` its computer's current one and welcomes it; False when it replaced
        an older connection of the computer, which is closed."""
        computer_id = connection.computer.computer_id
        # Welcomed as it is registered, with no await between: whatever a command queues comes after.
        replaced = self.registry.register(computer_id, connection)
        connection.send(
            Welcome(computer_id=computer_id, heartbeat_seconds=self.heartbeat_seconds, server_version=release.version())
        )
        if replaced is None:
            return True
        await replaced.close(CLOSE_REPLACED, "replaced by a newer connection")
        return False

    async def agents_seen(self) -> int:
        """Tells devices which agents this replica still holds, `AGENTS_SEEN_PER_CALL` a call;
        returns how many it told of."""
        held = self.registry.computer_ids()
        for start in range(0, len(held), AGENTS_SEEN_PER_CALL):
            try:
                await self.devices.agents_seen(held[start : start + AGENTS_SEEN_PER_CALL])
            except ApiError as error:
                log.warning("AgentSeen failed", extra={"agents": len(held), "code": error.code})
                return start
        return len(held)

    async def disconnected(self, connection: AgentLink) -> bool:
        """Forgets the connection; False when a newer one had replaced it (the computer stays online)."""
        computer_id = connection.computer.computer_id
        if not self.registry.unregister(computer_id, connection):
            return False
        try:
            await self.devices.agent_disconnected(computer_id, self.instance_id)
        except ApiError as error:
            log.warning("AgentDisconnected failed", extra={"computer_id": computer_id, "code": error.code})
        return True

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

    async def report_printers(self, computer_id: str, report: Printers) -> None:
        try:
            await self.devices.report_printers(computer_id, report.printers)
        except ApiError as error:
            log.warning("printer report failed", extra={"computer_id": computer_id, "code": error.code})
            if error.status >= 500:
                # The agent takes a report it sent as recorded; closing makes it reconnect, and its
                # hello reports every printer again.
                raise AgentRefused(CLOSE_INTERNAL_ERROR, "printers not recorded; reconnect and report again") from None
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, error.message) from None

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

    async def disconnect(self, connection: AgentLink) -> None:
        """The computer was disabled or deleted: its agent goes, and may come back once re-enabled."""
        await connection.close(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted")

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

    # --- this replica ----------------------------------------------------------------------

    async def instance_heartbeat(self) -> bool:
        """Tells devices this replica is alive; False when devices had presumed it dead."""
        return await self.devices.gateway_heartbeat(self.instance_id)

    async def drop_all_connections(self) -> None:
        """Devices took this replica's computers offline while it could not heartbeat; its agents
        reconnect (here or on another replica) and so become online again."""
        connections = self.registry.connections()
        log.warning("presumed dead by devices; closing agent connections", extra={"connections": len(connections)})
        await asyncio.gather(*(c.close(CLOSE_SERVICE_RESTART, "reconnect") for c in connections))
