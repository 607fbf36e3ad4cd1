"""Tells devices which agents this replica holds, once every heartbeat interval (their
`last_seen_at`): one call a beat for all of them, where a task and a call per agent made an idle
fleet of 10,000 cost devices a third of a core (docs/performance.md)."""

from __future__ import annotations

import asyncio

from printcloud.agent_gateway.service import AgentGatewayService


class AgentsSeen:
    def __init__(self, service: AgentGatewayService, interval_seconds: float) -> None:
        self.service = service
        self.interval_seconds = interval_seconds

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_seconds)
            await self.service.agents_seen()
