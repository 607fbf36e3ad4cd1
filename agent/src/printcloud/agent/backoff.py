"""Reconnect delays: capped exponential backoff with full jitter, so a fleet of agents that lost
the same gateway does not come back in lockstep."""

from __future__ import annotations

import random


class Backoff:
    def __init__(self, *, base: float = 1.0, cap: float = 60.0, rng: random.Random | None = None) -> None:
        self.base = base
        self.cap = cap
        self._rng = rng or random.Random()
        self._attempt = 0

    def ceiling(self) -> float:
        """The upper bound of the next delay."""
        return min(self.cap, self.base * 2.0**self._attempt)

    def next_delay(self) -> float:
        delay = self._rng.uniform(0, self.ceiling())
        self._attempt = min(self._attempt + 1, 32)  # past the cap; keeps 2**n small
        return delay

    def reset(self) -> None:
        self._attempt = 0
