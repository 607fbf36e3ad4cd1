"""Periodic clean-up of the jobs schema: URLs held past their hour, files past their retention."""

from __future__ import annotations

import logging

from printcloud.core.service import run_periodically
from printcloud.jobs.service import JobService

log = logging.getLogger(__name__)


async def run_housekeeping(jobs: JobService, interval_seconds: float) -> None:
    async def clean_up() -> None:
        expired = await jobs.expire_pending_fetches()
        purged = await jobs.purge_files()
        if expired or purged:
            log.info("housekeeping", extra={"expired_fetches": expired, "purged_files": purged})

    await run_periodically(clean_up, interval_seconds, "jobs housekeeping")
