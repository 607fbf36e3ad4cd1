"""The limits tests shorten through settings keep the spec's values by default."""

from __future__ import annotations

from datetime import timedelta

from printcloud.contracts.job_upload import MAX_DOCUMENT_BYTES
from printcloud.jobs.domain.timers import TimerPolicy
from printcloud.jobs.settings import Settings
from printcloud.jobs.use_cases.print_jobs import PENDING_FETCH_LIFETIME, JobLimits
from printcloud.jobs.workers.content_fetcher import FETCH_TIMEOUT_SECONDS


def test_the_spec_limits_are_the_defaults() -> None:
    settings = Settings(internal_auth_secret="s" * 32)
    assert settings.test_jobs_per_day == JobLimits().test_jobs_per_day == 500
    assert timedelta(seconds=settings.file_retention_seconds) == JobLimits().file_retention == timedelta(days=7)
    assert settings.content_fetch_timeout_seconds == FETCH_TIMEOUT_SECONDS == 30
    assert MAX_DOCUMENT_BYTES == 25 * 1024 * 1024
    assert timedelta(hours=1) == PENDING_FETCH_LIFETIME
    # The job timers (spec "States and transitions"): resend after 60 s, 3 resends, 15 minutes printing.
    assert settings.timer_policy() == TimerPolicy() == TimerPolicy(timedelta(seconds=60), 3, timedelta(minutes=15))
