"""An agent's connection, what it reports of its printers, the command that ends it, and this
replica's heartbeat: each a call to devices and the decision about the answer; the transport maps
WebSocket frames and Kafka commands to them.

The gateway owns no data: devices and jobs record everything, and what it holds is which agents
are connected to this replica (`registry`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.agent_gateway.domain.registry import ConnectionRegistry
from printcloud.agent_gateway.domain.return_pacing import ReturnPacing
from printcloud.contracts.errors import ApiError
from printcloud.core import release
from printcloud.protocol.constants import (
    CLOSE_BAD_CREDENTIAL,
    CLOSE_COMPUTER_DISABLED,
    CLOSE_PROTOCOL_ERROR,
    CLOSE_REPLACED,
)
from printcloud.protocol.messages import Hello, PrinterReport, Printers, Welcome
from printcloud.protocol.parsing import GatewayMessage

log = logging.getLogger(__name__)

# Standard close codes: the agent should come back later.
CLOSE_INTERNAL_ERROR = 1011
CLOSE_SERVICE_RESTART = 1012
CLOSE_TRY_AGAIN_LATER = 1013
# One heartbeat call per this many held agents: 10,000 agents are ten small calls a beat.
AGENTS_SEEN_PER_CALL = 1000


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


class Devices(Protocol):
    """The devices service, as the gateway calls it (`transport.devices_client`); failures are `ApiError`."""

    async def authenticate_agent(self, credential: str) -> AgentIdentity: ...

    async def agent_connected(self, computer_id: str, hello: Hello, gateway_instance: str) -> None: ...

    async def agents_seen(self, computer_ids: Sequence[str]) -> None: ...

    async def agent_disconnected(self, computer_id: str, gateway_instance: str) -> None:
        """Cancelled, it returns once devices will not record it later: withdrawn before it was
        sent, or answered."""

    async def report_printers(self, computer_id: str, printers: list[PrinterReport]) -> None: ...

    async def computer_state(self, computer: ComputerScope) -> str: ...

    async def gateway_heartbeat(self, gateway_instance: str) -> bool: ...


@dataclass
class Agents:
    devices: Devices
    instance_id: str
    heartbeat_seconds: float
    limits: AgentLimits = field(default_factory=AgentLimits)
    registry: ConnectionRegistry[AgentLink] = field(default_factory=ConnectionRegistry)
    # Agents between their connection and their welcome.
    connecting: int = 0
    pacing: ReturnPacing = field(default_factory=ReturnPacing)
    # Goodbyes on their way to devices, by computer.
    goodbyes: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    # --- an agent's connection -------------------------------------------------------------

    def busy(self) -> bool:
        """Whether a new agent is to be told to come back later: past `limits.max_connecting`
        handshakes at once, each waits longer for devices, and in a reconnect storm handshakes
        that wait past the agents' timeout are lost work (docs/performance.md)."""
        return self.connecting >= self.limits.max_connecting

    def come_back_in(self) -> int:
        """An agent refused for `busy`: the whole seconds it is told to wait before trying again."""
        return self.pacing.refused()

    def handshake_began(self) -> None:
        self.connecting += 1
        self.pacing.admitted()

    def handshake_ended(self) -> None:
        self.connecting -= 1

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
        await self._forgo_goodbye(computer_id)
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
        goodbye = asyncio.create_task(self._goodbye(computer_id))
        self.goodbyes[computer_id] = goodbye
        goodbye.add_done_callback(lambda _: self._forget_goodbye(computer_id, goodbye))
        await asyncio.wait([goodbye])
        return True

    async def _goodbye(self, computer_id: str) -> None:
        try:
            await self.devices.agent_disconnected(computer_id, self.instance_id)
        except ApiError as error:
            log.warning("AgentDisconnected failed", extra={"computer_id": computer_id, "code": error.code})

    def _forget_goodbye(self, computer_id: str, goodbye: asyncio.Task[None]) -> None:
        if self.goodbyes.get(computer_id) is goodbye:
            del self.goodbyes[computer_id]

    async def _forgo_goodbye(self, computer_id: str) -> None:
        """The agent is back on this replica before the goodbye of its last connection reached
        devices (a storm of reconnects queues thousands): the goodbye is withdrawn, so the computer
        never goes offline, or, when it is already on its way, the hello waits for it. Devices must
        never record the goodbye after the hello: the computer would be offline with its agent
        connected."""
        goodbye = self.goodbyes.get(computer_id)
        if goodbye is not None:
            goodbye.cancel()
            await asyncio.wait([goodbye])

    # --- what an agent reports -------------------------------------------------------------

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

    # --- commands for an agent -------------------------------------------------------------

    async def disconnect(self, connection: AgentLink) -> None:
        """The computer was disabled or deleted: its agent goes, and may come back once re-enabled."""
        await connection.close(CLOSE_COMPUTER_DISABLED, "computer disabled or deleted")

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
