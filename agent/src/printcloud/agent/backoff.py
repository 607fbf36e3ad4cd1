"""Reconnect delays: capped exponential backoff with full jitter, so a fleet of agents that lost
the same gateway does not come back in lockstep; and the wait a busy gateway (or a proxy in front
of it, during maintenance) asked for."""

from __future__ import annotations

import random
from collections.abc import Mapping

# A `Retry-After` further out than this is taken as this: a wrong header must not park an agent
# for hours.
MAX_RETRY_AFTER_SECONDS = 600.0
# Agents told the same wait spread their return over the second after it (PROTOCOL.md).
RETRY_AFTER_SPREAD_SECONDS = 1.0


class Backoff:
    def __init__(self, *, base: float = 1.0, cap: float = 60.0, rng: random.Random | None = None) -> None:
        self.base = base
        self.cap = cap
        self._rng = rng or random.Random()
        self._attempt = 0

    def ceiling(self) -> float:
        """The upper bound of the next delay."""
        return min(self.cap, self.base * 2.0**self._attempt)

    def next_delay(self, retry_after: float | None = None) -> float:
        """The wait before the next attempt: the `retry_after` a 503 asked for, when it did (spread
        over the second after it; the backoff does not grow, since the wait was told, not
        guessed), else the backoff's."""
        if retry_after is not None:
            return retry_after + self._rng.uniform(0, RETRY_AFTER_SPREAD_SECONDS)
        delay = self._rng.uniform(0, self.ceiling())
        self._attempt = min(self._attempt + 1, 32)  # past the cap; keeps 2**n small
        return delay

    def reset(self) -> None:
        self._attempt = 0


def retry_after(status: int, headers: Mapping[str, str]) -> float | None:
    """The seconds a gateway, or a proxy in front of it, that answered the upgrade with 503 asked
    the agent to wait; None for any other refusal, or a `Retry-After` that is not a number of
    seconds."""
    value = headers.get("Retry-After", "").strip()
    if status != 503 or not value.isascii() or not value.isdigit():
        return None
    return min(float(value), MAX_RETRY_AFTER_SECONDS)
