"""The agent WebSocket endpoint: frames to protocol messages to use cases, and a refusal to the
close frame that tells the agent why."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping

from prometheus_client import Counter, Gauge
from starlette.websockets import WebSocket, WebSocketDisconnect

from printcloud.agent_gateway.domain.agent_limits import TokenBucket
from printcloud.agent_gateway.transport.connection import AgentConnection, fitted_close_reason
from printcloud.agent_gateway.use_cases.agents import AgentRefused, Agents
from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.contracts.errors import ApiError
from printcloud.core.http import bounded_json, edge_http
from printcloud.core.http.authorization_header import authorization
from printcloud.core.http.error_envelope import error_response
from printcloud.core.storable_text import PROBLEM, first_unstorable
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_for
from printcloud.protocol.constants import CLOSE_PROTOCOL_ERROR, CLOSE_TOO_MANY_MESSAGES, SUBPROTOCOL, WS_PATH
from printcloud.protocol.messages import Hello, JobState, JobStateRecorded, Printers
from printcloud.protocol.parsing import ProtocolError, parse_agent_message, parse_hello

log = logging.getLogger(__name__)

HELLO_TIMEOUT_SECONDS = 15.0
BUSY = ApiError("service_unavailable", "Too many agents are connecting to this gateway; try again later.")
# How soon a new connection's queued jobs are asked for again when the jobs service did not answer.
PENDING_RETRY_SECONDS = 5.0

CONNECTIONS = Gauge("printcloud_agent_connections", "Agent WebSockets held by this replica")
CLOSES = Counter("printcloud_agent_closes_total", "Agent WebSockets closed by the gateway", ["code"])
BUSY_REFUSALS = Counter(
    "printcloud_agent_busy_refusals_total", "Agent connections refused (503) while too many were connecting"
)
TOLD_TO_WAIT = Gauge(
    "printcloud_agents_told_to_wait", "Agents refused (503) and told when to come back, whose time has not come"
)


def busy_upgrade_refusal(agents: Agents) -> edge_http.UpgradeRefusal:
    """The same refusal as `AgentSocket`'s, answered by the HTTP protocol before any WebSocket
    exists: the cheap path for most attempts of a storm. `AgentSocket` still decides, for an
    upgrade whose path is spelled another way and for the moment between the two checks."""
    TOLD_TO_WAIT.set_function(agents.pacing.waiting)

    def refusal(path: str) -> edge_http.Refusal | None:
        if path != WS_PATH or not agents.busy():
            return None
        BUSY_REFUSALS.inc()
        return edge_http.Refusal(BUSY.status, BUSY.code, BUSY.message, agents.come_back_in())

    return refusal


class AgentSocket:
    def __init__(self, agents: Agents, jobs: AgentJobs) -> None:
        self.agents = agents
        self.jobs = jobs

    async def handle(self, websocket: WebSocket) -> None:
        connection = await self._handshake(websocket)
        if connection is not None:
            await self._serve(connection)

    async def _handshake(self, websocket: WebSocket) -> AgentConnection | None:
        """The agent admitted, authenticated and its hello recorded; None when it was refused or
        left. In a frame of its own: what the handshake needed (the hello, its printers) is not
        held for as long as the agent stays connected."""
        if SUBPROTOCOL not in websocket.scope.get("subprotocols", []):
            await websocket.accept()
            await self._close(websocket, AgentRefused(CLOSE_PROTOCOL_ERROR, f"subprotocol {SUBPROTOCOL} required"))
            return None
        if self.agents.busy():
            # Refused before the upgrade: in a storm of reconnects most attempts are refused, and a
            # refusal that is an HTTP answer costs neither side a WebSocket handshake and close.
            # Not logged one by one (thousands in a storm); the counter shows them.
            BUSY_REFUSALS.inc()
            await _deny(websocket, BUSY, {"Retry-After": str(self.agents.come_back_in())})
            return None
        # Read before the accept: the server forgets the request's headers once it has accepted.
        try:
            credential = authorization(websocket.headers) or ""
        except ApiError as refused:
            await _deny(websocket, refused)
            return None
        self.agents.handshake_began()
        try:
            # Accepting first lets the refusals below carry the protocol's close codes.
            await websocket.accept(subprotocol=SUBPROTOCOL)
            computer = await self.agents.authenticate(credential)
            hello = await self._receive_hello(websocket)
            await self.agents.connect(computer.computer_id, hello)
        except AgentRefused as refused:
            await self._close(websocket, refused)
            return None
        except WebSocketDisconnect:
            return None
        finally:
            self.agents.handshake_ended()
        return AgentConnection(websocket, computer, self.agents.limits)

    async def _receive_hello(self, websocket: WebSocket) -> Hello:
        try:
            raw = await asyncio.wait_for(self._receive_object(websocket), HELLO_TIMEOUT_SECONDS)
        except TimeoutError:
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, "hello expected") from None
        try:
            return parse_hello(raw, self.agents.limits.message_bounds)
        except ProtocolError as error:
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, str(error)) from None

    async def _serve(self, connection: AgentConnection) -> None:
        computer_id = connection.computer_id
        if await self.agents.welcome(connection):
            CONNECTIONS.inc()
        log.info("agent connected", extra={"computer_id": computer_id})
        delivering = asyncio.create_task(self._deliver_pending(connection))
        try:
            await self._receive_loop(connection)
        except AgentRefused as refused:
            _log_close(refused, computer_id)
            await connection.close(refused.code, refused.reason)
            CLOSES.labels(str(refused.code)).inc()
        except asyncio.CancelledError:
            if not connection.abandoned:
                raise
            # Our own cancellation (the agent stopped reading): serving ends like any disconnect.
            task = asyncio.current_task()
            assert task is not None  # serving runs in the connection's own task
            task.uncancel()
        finally:
            delivering.cancel()
            await asyncio.gather(delivering, return_exceptions=True)
            await connection.release()
            # A connection replaced by a newer one here must not mark the computer offline.
            if await self.agents.disconnected(connection):
                CONNECTIONS.dec()
            log.info("agent disconnected", extra={"computer_id": computer_id})

    async def _receive_loop(self, connection: AgentConnection) -> None:
        limits = self.agents.limits
        bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        while True:
            try:
                raw = await self._receive_object(connection.websocket)
            except WebSocketDisconnect:
                return
            if not bucket.take():
                raise AgentRefused(
                    CLOSE_TOO_MANY_MESSAGES, f"more than {limits.messages_per_second:g} messages per second"
                )
            try:
                message = parse_agent_message(raw, limits.message_bounds)
            except ProtocolError as error:
                raise AgentRefused(CLOSE_PROTOCOL_ERROR, str(error)) from None
            if isinstance(message, JobState):
                await self.jobs.report_job_state(connection.computer_id, message)
                # Only now may the agent forget the report: it re-reports unacknowledged ones, even
                # after a crash, since a report in flight when either side dies is lost.
                connection.send(JobStateRecorded(job_id=message.job_id, state=message.state))
            elif isinstance(message, Printers):
                await self.agents.report_printers(connection.computer_id, message)
            else:
                log.debug("ignoring message of unknown type", extra={"type": message.type})

    async def _receive_object(self, websocket: WebSocket) -> dict[str, object]:
        """One text frame's JSON object, parsed within the connection's bounds."""
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        text = frame.get("text")
        if text is None:
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, "messages are JSON text frames")
        try:
            message = bounded_json.loads(text, max_depth=self.agents.limits.max_depth)
        except bounded_json.JsonRefused as refused:
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, str(refused)) from None
        if not isinstance(message, dict):
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, "a message is a JSON object")
        unstorable = first_unstorable(message)
        if unstorable is not None:
            raise AgentRefused(CLOSE_PROTOCOL_ERROR, f"{unstorable} {PROBLEM}")
        return message

    async def _deliver_pending(self, connection: AgentConnection) -> None:
        while not connection.closed:
            try:
                await self.jobs.deliver_pending(connection)
                return
            except ApiError as error:
                log.warning(
                    "queued jobs not delivered yet", extra={"computer_id": connection.computer_id, "code": error.code}
                )
                await asyncio.sleep(PENDING_RETRY_SECONDS)

    @staticmethod
    async def _close(websocket: WebSocket, refused: AgentRefused) -> None:
        _log_close(refused, None)
        CLOSES.labels(str(refused.code)).inc()
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.close(refused.code, fitted_close_reason(refused.reason))


async def _deny(websocket: WebSocket, error: ApiError, headers: Mapping[str, str] | None = None) -> None:
    """Refuses the upgrade with an HTTP answer in the envelope. The HTTP middleware that gives other
    answers their request id is not on the WebSocket's way (app.py), so it is taken here."""
    request_id = request_id_for(websocket.headers.get(REQUEST_ID_HEADER))
    await websocket.send_denial_response(error_response(error, headers, request_id=request_id))


def _log_close(refused: AgentRefused, computer_id: str | None) -> None:
    log.warning(
        "agent connection closed", extra={"code": refused.code, "reason": refused.reason, "computer_id": computer_id}
    )
