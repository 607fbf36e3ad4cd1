"""Periodic clean-up of the jobs schema: URLs held past their hour, files past their retention."""

from __future__ import annotations

import asyncio
import logging

from printcloud.jobs.service import JobService

log = logging.getLogger(__name__)


async def run_housekeeping(jobs: JobService, interval_seconds: float) -> None:
    while True:
        try:
            expired = await jobs.expire_pending_fetches()
            purged = await jobs.purge_files()
            if expired or purged:
                log.info("housekeeping", extra={"expired_fetches": expired, "purged_files": purged})
        except Exception:
            log.exception("housekeeping round failed")
        await asyncio.sleep(interval_seconds)
