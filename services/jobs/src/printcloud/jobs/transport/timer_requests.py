"""`FireDueTimers` requests and answers, for the Jobs servicer."""

from __future__ import annotations

from datetime import timedelta

from printcloud.core.errors import invalid
from printcloud.jobs.domain.timers import TimerAction, TimerPolicy
from printcloud.jobs.service import JobService
from printcloud.jobs.timers import fire_due_timers
from printcloud.v1 import jobs_pb2

MAX_TIMERS_PER_CALL = 1000


async def fire_due_timers_rpc(
    jobs: JobService, request: jobs_pb2.FireDueTimersRequest
) -> jobs_pb2.FireDueTimersResponse:
    if request.resend_after_seconds <= 0 or request.spooler_timeout_seconds <= 0 or request.max_resends < 0:
        raise invalid("Timer durations must be positive and `max_resends` at least 0.")
    if not 1 <= request.limit <= MAX_TIMERS_PER_CALL:
        raise invalid(f"`limit` must be from 1 to {MAX_TIMERS_PER_CALL}.")
    policy = TimerPolicy(
        resend_after=timedelta(seconds=request.resend_after_seconds),
        max_resends=request.max_resends,
        spooler_timeout=timedelta(seconds=request.spooler_timeout_seconds),
    )
    fired = await fire_due_timers(jobs, policy, request.limit)
    return jobs_pb2.FireDueTimersResponse(
        resent=fired[TimerAction.RESEND],
        requeued=fired[TimerAction.REQUEUE],
        timed_out=fired[TimerAction.SPOOLER_TIMEOUT],
        expired=fired[TimerAction.EXPIRE],
    )
