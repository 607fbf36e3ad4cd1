"""Which store decides a request's rate: the shared Redis window, or this process's own.

Without `PRINTCLOUD_REDIS_URL` the in-process log decides, exact for a single replica. With it,
Redis decides for every replica together. When Redis cannot answer, requests are still served
(failing closed would turn a cache outage into a full API outage): this replica falls back to its
own log, so each replica still holds the limit on its own, logs the change once, counts the
failures, and tries Redis again after `RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from prometheus_client import Counter, Gauge
from redis.exceptions import RedisError

from printcloud.api_gateway.domain.rate_limits import RateDecision, SlidingWindowLog
from printcloud.api_gateway.persistence.redis_url import redis_problem

log = logging.getLogger(__name__)

RETRY_SECONDS = 1.0

STORE_FAILURES = Counter(
    "printcloud_rate_limit_store_failures_total",
    "Rate-limit decisions the shared store failed to make (the replica decided alone)",
)
# Labelled so that a replica with no shared store (one replica, limits kept in the process) has no
# series at all: a bare gauge would read 0 there, an outage that is not one.
STORE_UP = Gauge(
    "printcloud_rate_limit_store_up", "1 while the shared rate-limit store answers, 0 while it does not", ["store"]
)
SHARED_STORE = "redis"
REFUSED = Counter("printcloud_rate_limited_total", "Requests refused with 429 rate_limited", ["principal"])


class SharedWindow(Protocol):
    async def hit(self, principal: str) -> RateDecision: ...

    async def close(self) -> None: ...


class RateLimiter:
    def __init__(
        self, limit: int, shared: SharedWindow | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.shared = shared
        self.local = SlidingWindowLog(limit)
        self._clock = clock
        self._shared_down_until = 0.0
        self._shared_down = False
        if shared is not None:
            STORE_UP.labels(SHARED_STORE).set(1)

    async def hit(self, principal: str) -> RateDecision:
        decided = await self._decide(principal)
        if not decided.allowed:
            # The kind only (`key`, `ip`, ...): ids and addresses would make unbounded label sets.
            REFUSED.labels(principal.partition(":")[0]).inc()
        return decided

    async def _decide(self, principal: str) -> RateDecision:
        if self.shared is not None and self._clock() >= self._shared_down_until:
            try:
                decided = await self.shared.hit(principal)
            except (RedisError, OSError) as error:
                self._shared_failed(error)
            else:
                if self._shared_down:
                    self._shared_down = False
                    STORE_UP.labels(SHARED_STORE).set(1)
                    log.warning("rate-limit store answers again; limits are shared across replicas again")
                return decided
        return self.local.hit(principal, self._clock())

    def _shared_failed(self, error: Exception) -> None:
        STORE_FAILURES.inc()
        self._shared_down_until = self._clock() + RETRY_SECONDS
        if not self._shared_down:
            self._shared_down = True
            STORE_UP.labels(SHARED_STORE).set(0)
            # The error's type only: its text can carry the store's address and user. A TLS or login
            # failure's reason is safe, and says what to fix.
            problem = redis_problem(error)
            details = {"error": type(error).__name__}
            if problem.misconfigured:
                details["reason"] = problem.reason
            log.log(
                logging.ERROR if problem.misconfigured else logging.WARNING,
                "rate-limit store unreachable; serving with per-replica limits until it answers",
                extra=details,
            )

    async def close(self) -> None:
        if self.shared is not None:
            await self.shared.close()
