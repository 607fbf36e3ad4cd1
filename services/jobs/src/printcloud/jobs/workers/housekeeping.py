"""Periodic clean-up of the jobs schema: URLs held past their hour, files past their retention,
idempotency keys past their 24 hours."""

from __future__ import annotations

import logging

from printcloud.core.periodic import run_periodically
from printcloud.jobs.use_cases.print_jobs import JobService

log = logging.getLogger(__name__)


async def run_housekeeping(jobs: JobService, interval_seconds: float) -> None:
    async def clean_up() -> None:
        expired = await jobs.expire_pending_fetches()
        purged = await jobs.purge_files()
        keys = await jobs.purge_idempotency_keys()
        if expired or purged or keys:
            log.info(
                "housekeeping",
                extra={"expired_fetches": expired, "purged_files": purged, "purged_idempotency_keys": keys},
            )

    await run_periodically(clean_up, interval_seconds, "jobs housekeeping")
