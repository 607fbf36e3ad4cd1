"""Agent-gateway replicas: their heartbeats, and the sweep that takes offline the computers of a
replica presumed dead (docs/internals.md, "Agent-gateway replicas")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from printcloud.contracts.errors import invalid
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.persistence import agent_batches, repository
from printcloud.devices.use_cases.agent_batches import AgentBatch


@dataclass(frozen=True)
class GatewayInstances:
    db: Database

    async def record_gateway_heartbeat(self, gateway_instance: str) -> bool:
        """Records that a replica is alive; False when devices had no live record of it (never seen,
        or presumed dead and swept)."""
        if not gateway_instance:
            raise invalid("`gateway_instance` is required.")
        async with self.db.transaction() as session:
            return await repository.record_gateway_heartbeat(session, gateway_instance, utcnow())

    async def sweep_silent_gateways(self, now: datetime, timeout: timedelta) -> int:
        """Marks offline the online computers whose replica has not heartbeated within `timeout`, and
        forgets those replicas; returns how many computers went offline."""
        stale_before = now - timeout
        async with self.db.driver_transaction() as tx:
            await agent_batches.forget_silent_gateways(tx, stale_before)
            orphans = await agent_batches.lock_orphaned_computers(tx, stale_before)
            batch = AgentBatch(orphans, await agent_batches.printers_of_computers(tx, orphans), now)
            for computer in orphans.values():
                batch.take_offline(computer)
            await batch.write(tx)
        return len(orphans)
