"""The request-rate rule: at most `limit` admitted requests in any sliding window of one second.

A sliding log, not fixed one-second buckets: buckets admit twice the limit across a bucket edge,
and the spec's "20 requests per second" is read as "in any second". Refused requests are not
logged, so a client that keeps hammering still gets `limit` requests through per second.

Times are plain numbers of seconds supplied by the caller, so the arithmetic is testable alone;
the Redis store runs the same rule in one Lua step (see `persistence.redis_rate_limits`).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

WINDOW_SECONDS = 1.0
DEFAULT_REQUESTS_PER_SECOND = 20


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    # Until the oldest admitted request leaves the window, freeing one place.
    reset_seconds: float

    @property
    def reset_whole_seconds(self) -> int:
        # Rounded to the millisecond first so float noise (1.0000000002) never adds a second.
        return math.ceil(round(self.reset_seconds, 3))

    @property
    def retry_after(self) -> int:
        """Whole seconds to wait after a refusal; never 0, which clients could read as "at once"."""
        return max(1, self.reset_whole_seconds)

    def headers(self) -> dict[str, str]:
        headers = {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset_whole_seconds),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers


def decision(limit: int, allowed: bool, in_window: int, oldest: float, now: float) -> RateDecision:
    """The decision once the request is logged (or refused): `in_window` admitted requests remain in
    the window, the oldest of them at `oldest`."""
    return RateDecision(
        allowed=allowed,
        limit=limit,
        remaining=max(0, limit - in_window),
        reset_seconds=max(0.0, oldest + WINDOW_SECONDS - now),
    )


class SlidingWindowLog:
    """The rule in memory: exact for one process, and the fallback while the shared store is away."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a rate limit admits at least one request per second")
        self.limit = limit
        self._admitted: dict[str, deque[float]] = {}
        self._swept_at = -math.inf

    def hit(self, principal: str, now: float) -> RateDecision:
        admitted = self._admitted.setdefault(principal, deque())
        while admitted and admitted[0] <= now - WINDOW_SECONDS:
            admitted.popleft()
        allowed = len(admitted) < self.limit
        if allowed:
            admitted.append(now)
        self._sweep(now)
        return decision(self.limit, allowed, len(admitted), admitted[0], now)

    def _sweep(self, now: float) -> None:
        """Forgets principals idle for a whole window, at most once a window, so memory follows the
        number of recent callers rather than every caller ever seen."""
        if now - self._swept_at < WINDOW_SECONDS:
            return
        self._swept_at = now
        idle = [p for p, times in self._admitted.items() if not times or times[-1] <= now - WINDOW_SECONDS]
        for principal in idle:
            del self._admitted[principal]

    def __len__(self) -> int:
        return len(self._admitted)
