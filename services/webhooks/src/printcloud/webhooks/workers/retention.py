"""Purges old delivery logs and feed events every so often."""

from __future__ import annotations

import logging
from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.core.periodic import run_periodically
from printcloud.webhooks.use_cases.retention import purge_once

log = logging.getLogger(__name__)


async def run_retention(db: Database, retention: timedelta, *, every_seconds: float) -> None:
    async def purge_and_report() -> None:
        purged = await purge_once(db, retention)
        if any(purged):
            log.info("purged old deliveries and events", extra={"deliveries": purged[0], "events": purged[1]})

    await run_periodically(purge_and_report, every_seconds, "webhooks retention")
