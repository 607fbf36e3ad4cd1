"""Limits on wrong pairing codes: per client address, and per code prefix across all addresses.

Only failures count, so a fleet enrolling hundreds of computers from one address with a right
code is never slowed. An address past its limit is refused before its code is even looked at,
until its oldest failure in the window is older than the window. The prefix limit bounds
guessing by someone who knows the first group of a code (it is shown in lists), from any number
of addresses. The arithmetic is in docs/api.md, "How hard a code is to guess".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from printcloud.contracts.errors import ApiError
from printcloud.devices.domain.pairing_codes import hint_of

DEFAULT_FAILURES_PER_ADDRESS = 10
DEFAULT_FAILURES_PER_PREFIX = 50
DEFAULT_WINDOW = timedelta(minutes=15)


@dataclass(frozen=True)
class AttemptSubjects:
    address: str
    prefix: str


def attempt_subjects(client_address: str, code_text: str) -> AttemptSubjects:
    return AttemptSubjects(f"address:{client_address}", f"prefix:{hint_of(code_text)}")


@dataclass(frozen=True)
class RecentFailures:
    """Failures of one subject within the window, and when the oldest of them happened."""

    count: int
    oldest: datetime | None


@dataclass(frozen=True)
class AttemptLimits:
    per_address: int = DEFAULT_FAILURES_PER_ADDRESS
    per_prefix: int = DEFAULT_FAILURES_PER_PREFIX
    window: timedelta = DEFAULT_WINDOW

    def window_start(self, now: datetime) -> datetime:
        return now - self.window

    def refusal(self, now: datetime, address: RecentFailures, prefix: RecentFailures) -> ApiError | None:
        """The 429 for an attempt past a limit, or None when it may go ahead."""
        if address.count >= self.per_address:
            return self._limited(now, address, "from this address")
        if prefix.count >= self.per_prefix:
            return self._limited(now, prefix, "for codes starting like this one")
        return None

    def _limited(self, now: datetime, failures: RecentFailures, whose: str) -> ApiError:
        frees_at = (failures.oldest or now) + self.window
        retry_after = max(1, math.ceil((frees_at - now).total_seconds()))
        return ApiError(
            "rate_limited",
            f"Too many wrong pairing codes {whose}; try again in {retry_after} s.",
            {"retry_after": retry_after},
        )
