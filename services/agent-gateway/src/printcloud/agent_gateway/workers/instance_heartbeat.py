"""This replica's heartbeat to devices, which marks offline the computers of a replica that
stops heartbeating (it died and could not report its agents' disconnects)."""

from __future__ import annotations

import asyncio
import logging

from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.contracts.errors import ApiError

log = logging.getLogger(__name__)


class InstanceHeartbeat:
    def __init__(self, agents: Agents, interval_seconds: float) -> None:
        self.agents = agents
        self.interval_seconds = interval_seconds

    async def register(self) -> None:
        """The first heartbeat, before any agent can connect: devices must know this replica
        before it records computers as held by it, or a sweep would take them offline."""
        while True:
            try:
                await self.agents.instance_heartbeat()
                return
            except ApiError as error:
                log.warning("devices unreachable; retrying the first heartbeat", extra={"code": error.code})
                await asyncio.sleep(self.interval_seconds)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_seconds)
            try:
                known = await self.agents.instance_heartbeat()
            except ApiError as error:
                log.warning("heartbeat failed", extra={"code": error.code})
                continue
            if not known:
                await self.agents.drop_all_connections()
