"""`printcloud_print_jobs_active{state, mode}`: jobs in progress, counted every few seconds.

Every replica counts (they agree): dashboards and alerts take `max`. A state that has no job
left is set to 0 rather than dropped, so a graph falls to zero instead of stopping.
"""

from __future__ import annotations

from prometheus_client import Gauge

from printcloud.core.db import Database
from printcloud.core.service import run_periodically
from printcloud.jobs.domain.states import ACTIVE_STATES
from printcloud.jobs.persistence.repository import count_active_by_state

MODES = ("live", "test")
COUNT_SECONDS = 15.0

ACTIVE_JOBS = Gauge("printcloud_print_jobs_active", "Print jobs not yet in a final state", ["state", "mode"])


async def measure_active_jobs(db: Database) -> None:
    async with db.read() as session:
        counts = await count_active_by_state(session)
    for state in ACTIVE_STATES:
        for mode in MODES:
            ACTIVE_JOBS.labels(state, mode).set(counts.get((state, mode), 0))


async def run_job_metrics(db: Database, every_seconds: float = COUNT_SECONDS) -> None:
    await run_periodically(lambda: measure_active_jobs(db), every_seconds, "jobs by state")
