"""Asks the jobs service, again and again, to fire the job timers that are due.

The dispatcher holds no timer state and no timer policy: each job row holds its own deadlines,
jobs' settings hold the durations, and `FireDueTimers` fires each due timer in the transaction of
its change. A restarted or crashed dispatcher loses nothing, and replicas can poll side by side
(the jobs service skips rows another one holds).
"""

from __future__ import annotations

import asyncio
import logging

from prometheus_client import Counter

from printcloud.contracts.errors import ApiError
from printcloud.dispatcher.transport.jobs_client import JobsClient

log = logging.getLogger(__name__)

FIRED = Counter("printcloud_job_timers_fired_total", "Job timers fired by this dispatcher", ["timer"])
# A round is one FireDueTimers call; `failed` ones fired nothing, and their timers stay due.
ROUNDS = Counter("printcloud_job_timer_rounds_total", "Rounds of firing job timers, by outcome", ["outcome"])
ROUNDS.labels("ok")
ROUNDS.labels("failed")


class TimerLoop:
    def __init__(self, jobs: JobsClient, batch_size: int, poll_seconds: float) -> None:
        self.jobs = jobs
        self.batch_size = batch_size
        self.poll_seconds = poll_seconds

    async def fire_once(self) -> int:
        """Fires one batch; returns how many timers fired."""
        counts = await self.jobs.fire_due_timers(self.batch_size)
        for timer, count in counts.items():
            FIRED.labels(timer).inc(count)
        total = sum(counts.values())
        if total:
            log.info("job timers fired", extra=counts)
        return total

    async def run(self) -> None:
        while True:
            try:
                fired = await self.fire_once()
            except ApiError as error:
                # The jobs service is down or restarting; the timers stay due until it is back.
                ROUNDS.labels("failed").inc()
                log.warning("firing job timers failed", extra={"code": error.code})
                fired = 0
            else:
                ROUNDS.labels("ok").inc()
            if fired < self.batch_size:
                # A full batch means more may be due: go again at once.
                await asyncio.sleep(self.poll_seconds)
