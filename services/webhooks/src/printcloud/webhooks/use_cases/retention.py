"""Purges delivery logs and feed events older than the retention period (spec: 30 days)."""

from __future__ import annotations

from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence import deliveries, feed


async def purge_once(db: Database, retention: timedelta) -> tuple[int, int]:
    """How many deliveries and feed events were purged."""
    cutoff = utcnow() - retention
    async with db.transaction() as session:
        purged_deliveries = await deliveries.purge_created_before(session, cutoff)
        purged_events = await feed.purge_recorded_before(session, cutoff)
    return purged_deliveries, purged_events
