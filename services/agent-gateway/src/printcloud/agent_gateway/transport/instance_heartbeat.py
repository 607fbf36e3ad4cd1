"""This replica's heartbeat to devices, which marks offline the computers of a replica that
stops heartbeating (it died and could not report its agents' disconnects)."""

from __future__ import annotations

import asyncio
import logging

from printcloud.agent_gateway.transport.context import GatewayContext
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.v1 import devices_pb2

log = logging.getLogger(__name__)

# "Service restart": agents reconnect with backoff, here or on another replica.
CLOSE_SERVICE_RESTART = 1012


class InstanceHeartbeat:
    def __init__(self, context: GatewayContext, interval_seconds: float) -> None:
        self.context = context
        self.interval_seconds = interval_seconds
        self._request = devices_pb2.GatewayHeartbeatRequest(gateway_instance=context.instance_id)

    async def beat(self) -> bool:
        """One heartbeat; False when devices had presumed this replica dead."""
        answer: devices_pb2.GatewayHeartbeatResponse = await rpc.call(
            self.context.devices.GatewayHeartbeat, self._request
        )
        return answer.known

    async def register(self) -> None:
        """The first heartbeat, before any agent can connect: devices must know this replica
        before it records computers as held by it, or a sweep would take them offline."""
        while True:
            try:
                await self.beat()
                return
            except ApiError as error:
                log.warning("devices unreachable; retrying the first heartbeat", extra={"code": error.code})
                await asyncio.sleep(self.interval_seconds)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_seconds)
            try:
                known = await self.beat()
            except ApiError as error:
                log.warning("heartbeat failed", extra={"code": error.code})
                continue
            if not known:
                await self._drop_all_connections()

    async def _drop_all_connections(self) -> None:
        """Devices took this replica's computers offline while it could not heartbeat; its agents
        reconnect and so become online again."""
        connections = self.context.registry.connections()
        log.warning("presumed dead by devices; closing agent connections", extra={"connections": len(connections)})
        await asyncio.gather(*(c.close(CLOSE_SERVICE_RESTART, "reconnect") for c in connections))
