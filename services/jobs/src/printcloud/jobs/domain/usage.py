"""Usage periods: live prints count per calendar month (UTC), test jobs per UTC day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

# One print is one live job, whatever its `qty` and `copies` (docs/api.md, "Plans and quotas").
PRINTS_PER_JOB = 1


class OverLimit(Exception):
    """A job that would take its organization past the limit of its mode: refused, and not counted."""


@dataclass(frozen=True)
class UsageCounts:
    """An organization's counts in the current periods: (first instant, next period's) each."""

    month: tuple[datetime, datetime]
    day: tuple[datetime, datetime]
    live_prints: int
    test_jobs_today: int
    test_jobs_per_day: int


def month_of(moment: datetime) -> date:
    return moment.astimezone(UTC).date().replace(day=1)


def month_bounds(moment: datetime) -> tuple[datetime, datetime]:
    """The calendar month (UTC) holding `moment`: its first instant and the next month's."""
    first = month_of(moment)
    following = (first + timedelta(days=32)).replace(day=1)
    return _midnight(first), _midnight(following)


def day_bounds(moment: datetime) -> tuple[datetime, datetime]:
    day = moment.astimezone(UTC).date()
    return _midnight(day), _midnight(day + timedelta(days=1))


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
