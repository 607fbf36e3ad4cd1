"""`printcloud_print_jobs_active{state, mode}`: jobs in progress, counted every few seconds.

Every replica counts (they agree): dashboards and alerts take `max`. A state that has no job
left is set to 0 rather than dropped, so a graph falls to zero instead of stopping.
"""

from __future__ import annotations

from prometheus_client import Gauge

from printcloud.core.periodic import run_periodically
from printcloud.jobs.domain.states import ACTIVE_STATES
from printcloud.jobs.use_cases.print_jobs import JobService

MODES = ("live", "test")
COUNT_SECONDS = 15.0

ACTIVE_JOBS = Gauge("printcloud_print_jobs_active", "Print jobs not yet in a final state", ["state", "mode"])


async def measure_active_jobs(jobs: JobService) -> None:
    counts = await jobs.count_active()
    for state in ACTIVE_STATES:
        for mode in MODES:
            ACTIVE_JOBS.labels(state, mode).set(counts.get((state, mode), 0))


async def run_job_metrics(jobs: JobService, every_seconds: float = COUNT_SECONDS) -> None:
    await run_periodically(lambda: measure_active_jobs(jobs), every_seconds, "jobs by state")
