"""The spec's client behaviour: retry `429`, `5xx` and network errors with growing, jittered waits,
honouring `Retry-After`; never other `4xx`."""

from __future__ import annotations

import random
from dataclasses import dataclass

import httpx


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` tries after the first; the wait before retry n (from 0) is drawn from
    [1 - jitter, 1] x min(max_wait, initial_wait x multiplier^n) seconds, and is never shorter
    than the answer's `Retry-After`."""

    max_retries: int = 4
    initial_wait: float = 0.5
    multiplier: float = 2.0
    max_wait: float = 30.0
    jitter: float = 0.5

    def wait(self, retry: int, retry_after: float | None = None) -> float:
        ceiling = min(self.max_wait, self.initial_wait * self.multiplier**retry)
        drawn = ceiling * (1 - self.jitter * random.random())
        return max(drawn, retry_after or 0.0)


NO_RETRIES = RetryPolicy(max_retries=0)


def is_retryable(status: int) -> bool:
    return status == 429 or status >= 500


def retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds (the API sends whole seconds); None when absent or not a number."""
    value = response.headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def was_not_sent(error: httpx.TransportError) -> bool:
    """True when the request cannot have reached the server, so even a non-idempotent one may be
    sent again."""
    return isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)
