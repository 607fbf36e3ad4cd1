"""The current time for the use cases (the domain takes it as an argument)."""

from __future__ import annotations

from datetime import datetime

from printcloud.core.timeutil import utcnow


def now() -> datetime:
    """The current time at the millisecond precision timestamps are published with, so a job's
    `createdAt` sent back as an inclusive `created_to` bound still matches that job."""
    current = utcnow()
    return current.replace(microsecond=current.microsecond // 1000 * 1000)
