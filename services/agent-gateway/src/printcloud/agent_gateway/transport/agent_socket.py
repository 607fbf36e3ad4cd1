"""The agent WebSocket endpoint: authentication, hello, and the messages of a live agent."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from opentelemetry.trace import SpanKind
from prometheus_client import Counter, Gauge
from starlette.websockets import WebSocket, WebSocketDisconnect

from printcloud.agent import PROTOCOL_VERSION
from printcloud.protocol.constants import (
    CLOSE_BAD_CREDENTIAL,
    CLOSE_COMPUTER_DISABLED,
    CLOSE_PROTOCOL_ERROR,
    CLOSE_REPLACED,
    CLOSE_TOO_MANY_MESSAGES,
    HELLO,
    JOB_STATE,
    PRINTERS,
    REPORTABLE_STATES,
    SUBPROTOCOL,
    WELCOME,
)
from printcloud.agent_gateway.domain.agent_limits import TokenBucket
from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.agent_gateway.transport.connection import AgentConnection
from printcloud.agent_gateway.transport.context import GatewayContext
from printcloud.agent_gateway.transport.deliveries import JobDeliveries
from printcloud.agent_gateway.transport.wire import WireError, computer_report, printer_reports
from printcloud.core import bounded_json, rpc
from printcloud.core.errors import ApiError
from printcloud.core.storable_text import PROBLEM, first_unstorable
from printcloud.core.telemetry import activate_carrier
from printcloud.v1 import devices_pb2, jobs_pb2

log = logging.getLogger(__name__)

HELLO_TIMEOUT_SECONDS = 15.0
# How soon a new connection's queued jobs are asked for again when the jobs service did not answer.
PENDING_RETRY_SECONDS = 5.0
MAX_STATE_MESSAGE_CHARS = 2000
# Standard close codes: the agent should come back later.
CLOSE_INTERNAL_ERROR = 1011
CLOSE_TRY_AGAIN_LATER = 1013

CONNECTIONS = Gauge("printcloud_agent_connections", "Agent WebSockets held by this replica")
CLOSES = Counter("printcloud_agent_closes_total", "Agent WebSockets closed by the gateway", ["code"])


class _Close(Exception):
    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class AgentSocket:
    def __init__(self, context: GatewayContext) -> None:
        self.context = context
        self.deliveries = JobDeliveries(context)

    async def handle(self, websocket: WebSocket) -> None:
        if SUBPROTOCOL not in websocket.scope.get("subprotocols", []):
            await websocket.accept()
            await self._close(websocket, _Close(CLOSE_PROTOCOL_ERROR, f"subprotocol {SUBPROTOCOL} required"))
            return
        # Accepting first lets the refusals below carry the protocol's close codes.
        await websocket.accept(subprotocol=SUBPROTOCOL)
        try:
            identity = await self._authenticate(websocket)
            computer, printers = await self._receive_hello(websocket)
            await self._connected(identity.computer_id, computer, printers)
        except _Close as close:
            await self._close(websocket, close)
            return
        except WebSocketDisconnect:
            return
        computer = ComputerScope(identity.computer_id, identity.organization_id, identity.mode)
        await self._serve(AgentConnection(websocket, computer, self.context.limits))

    async def _authenticate(self, websocket: WebSocket) -> devices_pb2.AgentIdentity:
        scheme, _, credential = websocket.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise _Close(CLOSE_BAD_CREDENTIAL, "missing bearer credential")
        request = devices_pb2.AuthenticateAgentRequest(agent_credential=credential.strip())
        try:
            identity: devices_pb2.AgentIdentity = await rpc.call(self.context.devices.AuthenticateAgent, request)
        except ApiError as error:
            if error.status in (401, 404):
                raise _Close(CLOSE_BAD_CREDENTIAL, "invalid credential") from None
            if error.status == 403:
                raise _Close(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted") from None
            raise _Close(CLOSE_TRY_AGAIN_LATER, "authentication unavailable") from None
        if identity.disabled:
            raise _Close(CLOSE_COMPUTER_DISABLED, "computer disabled")
        return identity

    async def _receive_hello(
        self, websocket: WebSocket
    ) -> tuple[devices_pb2.ComputerReport, list[devices_pb2.PrinterReport]]:
        try:
            hello = await asyncio.wait_for(self._receive_json(websocket), HELLO_TIMEOUT_SECONDS)
        except TimeoutError:
            raise _Close(CLOSE_PROTOCOL_ERROR, "hello expected") from None
        if hello.get("type") != HELLO or hello.get("protocolVersion") != PROTOCOL_VERSION:
            raise _Close(CLOSE_PROTOCOL_ERROR, f"hello with protocolVersion {PROTOCOL_VERSION} expected")
        try:
            printers = printer_reports(hello.get("printers", []), self.context.limits)
            return computer_report(hello.get("computer")), printers
        except WireError as error:
            raise _Close(CLOSE_PROTOCOL_ERROR, str(error)) from None

    async def _connected(
        self, computer_id: str, computer: devices_pb2.ComputerReport, printers: list[devices_pb2.PrinterReport]
    ) -> None:
        request = devices_pb2.AgentConnectedRequest(
            computer_id=computer_id, computer=computer, printers=printers, gateway_instance=self.context.instance_id
        )
        try:
            await rpc.call(self.context.devices.AgentConnected, request)
        except ApiError as error:
            if error.status in (403, 404):
                raise _Close(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted") from None
            if error.status < 500:
                raise _Close(CLOSE_PROTOCOL_ERROR, error.message) from None
            raise _Close(CLOSE_TRY_AGAIN_LATER, "devices unavailable") from None

    async def _serve(self, connection: AgentConnection) -> None:
        computer_id = connection.computer_id
        registry = self.context.registry
        # Welcomed as it is registered, with no await between: whatever a command queues comes after.
        replaced = registry.register(computer_id, connection)
        connection.send(
            {"type": WELCOME, "computerId": computer_id, "heartbeatSeconds": self.context.heartbeat_seconds}
        )
        if replaced is not None:
            await replaced.close(CLOSE_REPLACED, "replaced by a newer connection")
        else:
            CONNECTIONS.inc()
        log.info("agent connected", extra={"computer_id": computer_id})
        helpers = [
            asyncio.create_task(self._heartbeat(computer_id)),
            asyncio.create_task(self._deliver_pending(connection)),
        ]
        try:
            await self._receive_loop(connection)
        except _Close as close:
            _log_close(close, computer_id)
            await connection.close(close.code, close.reason)
            CLOSES.labels(str(close.code)).inc()
        except asyncio.CancelledError:
            if not connection.abandoned:
                raise
            # Our own cancellation (the agent stopped reading): serving ends like any disconnect.
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
        finally:
            for helper in helpers:
                helper.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)
            await connection.release()
            # A connection replaced by a newer one here must not mark the computer offline.
            if registry.unregister(computer_id, connection):
                CONNECTIONS.dec()
                await self._disconnected(computer_id)
            log.info("agent disconnected", extra={"computer_id": computer_id})

    async def _receive_loop(self, connection: AgentConnection) -> None:
        limits = self.context.limits
        bucket = TokenBucket(limits.messages_per_second, limits.message_burst)
        while True:
            try:
                message = await self._receive_json(connection.websocket)
            except WebSocketDisconnect:
                return
            if not bucket.take():
                raise _Close(CLOSE_TOO_MANY_MESSAGES, f"more than {limits.messages_per_second:g} messages per second")
            kind = message.get("type")
            if kind == JOB_STATE:
                await self._job_state(connection.computer_id, message)
            elif kind == PRINTERS:
                await self._printers(connection.computer_id, message)
            elif kind == HELLO:
                raise _Close(CLOSE_PROTOCOL_ERROR, "hello sent twice")
            else:
                # Unknown types are ignored so that a newer agent can talk to an older gateway.
                log.debug("ignoring message of unknown type", extra={"type": kind})

    async def _receive_json(self, websocket: WebSocket) -> dict[str, Any]:
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        text = frame.get("text")
        if text is None:
            raise _Close(CLOSE_PROTOCOL_ERROR, "messages are JSON text frames")
        try:
            message = bounded_json.loads(text, max_depth=self.context.limits.max_depth)
        except bounded_json.JsonRefused as refused:
            raise _Close(CLOSE_PROTOCOL_ERROR, str(refused)) from None
        if not isinstance(message, dict):
            raise _Close(CLOSE_PROTOCOL_ERROR, "a message is a JSON object")
        unstorable = first_unstorable(message)
        if unstorable is not None:
            raise _Close(CLOSE_PROTOCOL_ERROR, f"{unstorable} {PROBLEM}")
        return message

    async def _job_state(self, computer_id: str, message: dict[str, Any]) -> None:
        job_id, state, text = message.get("jobId"), message.get("state"), message.get("message")
        if not isinstance(job_id, str) or state not in REPORTABLE_STATES or not isinstance(text, str | None):
            raise _Close(CLOSE_PROTOCOL_ERROR, "job.state needs jobId, a known state and a text message")
        request = jobs_pb2.ReportJobStateRequest(computer_id=computer_id, job_id=job_id, state=state)
        if text:
            request.message = text[:MAX_STATE_MESSAGE_CHARS]
        # An agent that got a `traceparent` with the job sends it back: the report joins the job's trace.
        traceparent = message.get("traceparent")
        carrier = {"traceparent": traceparent} if isinstance(traceparent, str) else {}
        try:
            with activate_carrier(carrier, f"{JOB_STATE} {state}", SpanKind.SERVER):
                await rpc.call(self.context.jobs.ReportJobState, request)
        except ApiError as error:
            if error.status >= 500:
                # The agent reports the last state of its jobs again when it reconnects.
                raise _Close(CLOSE_INTERNAL_ERROR, "job state not recorded; reconnect and report again") from None
            # A repeat or a late report (job cancelled, expired); nothing the agent can fix.
            log.info("job state refused", extra={"job_id": job_id, "state": state, "code": error.code})

    async def _printers(self, computer_id: str, message: dict[str, Any]) -> None:
        try:
            printers = printer_reports(message.get("printers"), self.context.limits)
        except WireError as error:
            raise _Close(CLOSE_PROTOCOL_ERROR, str(error)) from None
        request = devices_pb2.ReportPrintersRequest(computer_id=computer_id, printers=printers)
        try:
            await rpc.call(self.context.devices.ReportPrinters, request)
        except ApiError as error:
            log.warning("printer report failed", extra={"computer_id": computer_id, "code": error.code})
            if error.status >= 500:
                # The agent takes a report it sent as recorded; closing makes it reconnect, and its
                # hello reports every printer again.
                raise _Close(CLOSE_INTERNAL_ERROR, "printers not recorded; reconnect and report again") from None
            raise _Close(CLOSE_PROTOCOL_ERROR, error.message) from None

    async def _deliver_pending(self, connection: AgentConnection) -> None:
        while not connection.closed:
            try:
                await self.deliveries.deliver_pending(connection)
                return
            except ApiError as error:
                log.warning(
                    "queued jobs not delivered yet", extra={"computer_id": connection.computer_id, "code": error.code}
                )
                await asyncio.sleep(PENDING_RETRY_SECONDS)

    async def _heartbeat(self, computer_id: str) -> None:
        request = devices_pb2.AgentSeenRequest(computer_id=computer_id)
        while True:
            await asyncio.sleep(self.context.heartbeat_seconds)
            try:
                await rpc.call(self.context.devices.AgentSeen, request)
            except ApiError as error:
                log.warning("AgentSeen failed", extra={"computer_id": computer_id, "code": error.code})

    async def _disconnected(self, computer_id: str) -> None:
        request = devices_pb2.AgentDisconnectedRequest(
            computer_id=computer_id, gateway_instance=self.context.instance_id
        )
        try:
            await rpc.call(self.context.devices.AgentDisconnected, request)
        except ApiError as error:
            log.warning("AgentDisconnected failed", extra={"computer_id": computer_id, "code": error.code})

    @staticmethod
    async def _close(websocket: WebSocket, close: _Close) -> None:
        _log_close(close, None)
        CLOSES.labels(str(close.code)).inc()
        with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
            await websocket.close(close.code, close.reason)


def _log_close(close: _Close, computer_id: str | None) -> None:
    log.warning(
        "agent connection closed", extra={"code": close.code, "reason": close.reason, "computer_id": computer_id}
    )
