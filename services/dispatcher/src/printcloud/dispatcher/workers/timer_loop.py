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
from printcloud.core import rpc
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc

log = logging.getLogger(__name__)

FIRED = Counter("printcloud_job_timers_fired_total", "Job timers fired by this dispatcher", ["timer"])
# A round is one FireDueTimers call; `failed` ones fired nothing, and their timers stay due.
ROUNDS = Counter("printcloud_job_timer_rounds_total", "Rounds of firing job timers, by outcome", ["outcome"])
ROUNDS.labels("ok")
ROUNDS.labels("failed")


class TimerLoop:
    def __init__(self, jobs: jobs_pb2_grpc.JobsStub, batch_size: int, poll_seconds: float) -> None:
        self.jobs = jobs
        self.request = jobs_pb2.FireDueTimersRequest(limit=batch_size)
        self.poll_seconds = poll_seconds

    async def fire_once(self) -> int:
        """Fires one batch; returns how many timers fired."""
        fired: jobs_pb2.FireDueTimersResponse = await rpc.call(self.jobs.FireDueTimers, self.request)
        counts = {
            "resend": fired.resent,
            "requeue": fired.requeued,
            "spooler_timeout": fired.timed_out,
            "expire": fired.expired,
        }
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
            if fired < self.request.limit:
                # A full batch means more may be due: go again at once.
                await asyncio.sleep(self.poll_seconds)
