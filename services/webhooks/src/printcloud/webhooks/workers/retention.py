"""Purges delivery logs and feed events older than the retention period (spec: 30 days)."""

from __future__ import annotations

import logging
from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.core.periodic import run_periodically
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence import deliveries, feed

log = logging.getLogger(__name__)


async def purge_once(db: Database, retention: timedelta) -> tuple[int, int]:
    cutoff = utcnow() - retention
    async with db.transaction() as session:
        purged_deliveries = await deliveries.purge_created_before(session, cutoff)
        purged_events = await feed.purge_recorded_before(session, cutoff)
    return purged_deliveries, purged_events


async def run_retention(db: Database, retention: timedelta, *, every_seconds: float) -> None:
    async def purge_and_report() -> None:
        purged = await purge_once(db, retention)
        if any(purged):
            log.info("purged old deliveries and events", extra={"deliveries": purged[0], "events": purged[1]})

    await run_periodically(purge_and_report, every_seconds, "webhooks retention")
