"""Tells devices which agents this replica holds, once every heartbeat interval (their
`last_seen_at`): one call a beat for all of them, where a task and a call per agent made an idle
fleet of 10,000 cost devices a third of a core (docs/performance.md)."""

from __future__ import annotations

import asyncio

from printcloud.agent_gateway.use_cases.agents import Agents


class AgentsSeen:
    def __init__(self, agents: Agents, interval_seconds: float) -> None:
        self.agents = agents
        self.interval_seconds = interval_seconds

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_seconds)
            await self.agents.agents_seen()
