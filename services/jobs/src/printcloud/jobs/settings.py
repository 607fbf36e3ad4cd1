"""Settings of the jobs service (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from datetime import timedelta

from pydantic import NonNegativeInt, PositiveFloat

from printcloud.core.settings import EgressSettings, InternalAuthSettings
from printcloud.jobs.domain.timers import TimerPolicy

_SPEC_TIMERS = TimerPolicy()


class Settings(EgressSettings, InternalAuthSettings):
    service_name: str = "jobs"
    grpc_listen: str = "127.0.0.1:50051"
    # Spec limits as settings (spec values by default) so tests can reach them quickly.
    file_retention_seconds: int = 7 * 24 * 3600
    test_jobs_per_day: int = 500
    content_fetch_timeout_seconds: float = 30.0
    housekeeping_interval_seconds: float = 60.0
    # Jobs created on `printcloud.job-events` instead of `printcloud.domain-events` (docs/upgrades.md,
    # "Topics"). Off by default: while a release before 1.1 may run, its webhooks would not read them.
    create_jobs_on_job_events_topic: bool = False
    # The job timers (`domain/timers.py`): a `sent` job not acknowledged within `resend_after` is
    # sent again, `max_resends` times at most, then `queued` again; one `printing` for
    # `spooler_timeout` ends in `error`. Positive, since a zero wait would fire every job at once.
    resend_after_seconds: PositiveFloat = _SPEC_TIMERS.resend_after.total_seconds()
    max_resends: NonNegativeInt = _SPEC_TIMERS.max_resends
    spooler_timeout_seconds: PositiveFloat = _SPEC_TIMERS.spooler_timeout.total_seconds()

    def timer_policy(self) -> TimerPolicy:
        return TimerPolicy(
            resend_after=timedelta(seconds=self.resend_after_seconds),
            max_resends=self.max_resends,
            spooler_timeout=timedelta(seconds=self.spooler_timeout_seconds),
        )
