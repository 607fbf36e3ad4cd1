"""The job timers of the spec ("States and transitions", "Limits"): what a timer does to a job
whose deadline has passed.

- `sent` without acknowledgement for `resend_after`: sent again, up to `max_resends` times, each
  resend restarting the wait; after the last one, one more wait and the job goes back to `queued`.
- `printing` for `spooler_timeout`: `error` with `stateMessage` `spooler timeout`.
- `queued` or `sent` at `expiresAt`: `expired` (it comes before a resend that is due too).

The timers keep no state of their own: the job row holds every fact (`sent_at`, the resend
count and time, `printing_at`, `expires_at`), so a timer fires from whatever process looks.
The policy's defaults are the spec's; the jobs settings may shorten them (tests do).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from printcloud.jobs.domain.states import PRINTING, QUEUED, SENT

SPOOLER_TIMEOUT_MESSAGE = "spooler timeout"
EXPIRABLE_STATES: tuple[str, ...] = (QUEUED, SENT)


class TimerAction(StrEnum):
    RESEND = "resend"
    REQUEUE = "requeue"
    SPOOLER_TIMEOUT = "spooler_timeout"
    EXPIRE = "expire"


@dataclass(frozen=True)
class TimerPolicy:
    """The durations of the timers; the spec's by default (`Settings.timer_policy` may shorten them)."""

    resend_after: timedelta = timedelta(seconds=60)
    max_resends: int = 3
    spooler_timeout: timedelta = timedelta(minutes=15)


def requeue_message(policy: TimerPolicy) -> str:
    """The state-change message of a job sent back to `queued` by the timers."""
    return f"not acknowledged after {policy.max_resends} resends"


@dataclass(frozen=True)
class JobClock:
    """The facts of one job that its timers read."""

    state: str
    expires_at: datetime
    sent_at: datetime | None
    last_resent_at: datetime | None
    resend_count: int
    printing_at: datetime | None

    @property
    def waiting_since(self) -> datetime | None:
        """When the current wait for an acknowledgement began: the last send."""
        return self.last_resent_at or self.sent_at


def due_action(job: JobClock, policy: TimerPolicy, now: datetime) -> TimerAction | None:
    """The timer that fires for `job` at `now`, or None when none is due."""
    if job.state in EXPIRABLE_STATES and job.expires_at <= now:
        return TimerAction.EXPIRE
    if job.state == PRINTING and job.printing_at is not None and job.printing_at <= now - policy.spooler_timeout:
        return TimerAction.SPOOLER_TIMEOUT
    waiting_since = job.waiting_since
    if job.state == SENT and waiting_since is not None and waiting_since <= now - policy.resend_after:
        return TimerAction.RESEND if job.resend_count < policy.max_resends else TimerAction.REQUEUE
    return None
