"""This replica's heartbeat to devices, which marks offline the computers of a replica that
stops heartbeating (it died and could not report its agents' disconnects)."""

from __future__ import annotations

import asyncio
import logging

from printcloud.agent_gateway.use_cases.agents import Agents
from printcloud.contracts.errors import ApiError

log = logging.getLogger(__name__)

# Replicas and devices start together (`make dev`, a rollout), so devices is often moments from
# answering when the first heartbeat fails; agents cannot connect until it succeeds.
FIRST_RETRY_SECONDS = 0.25


class InstanceHeartbeat:
    def __init__(self, agents: Agents, interval_seconds: float) -> None:
        self.agents = agents
        self.interval_seconds = interval_seconds

    async def register(self) -> None:
        """The first heartbeat, before any agent can connect: devices must know this replica
        before it records computers as held by it, or a sweep would take them offline. Asked again
        soon after a failure, then half as often each time, down to once an interval."""
        delay = min(FIRST_RETRY_SECONDS, self.interval_seconds)
        while True:
            try:
                await self.agents.instance_heartbeat()
                return
            except ApiError as error:
                log.warning("devices unreachable; retrying the first heartbeat", extra={"code": error.code})
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.interval_seconds)

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
