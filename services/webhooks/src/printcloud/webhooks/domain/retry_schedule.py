"""When the next attempt of a failed delivery is due (spec, "Delivery and retries")."""

from __future__ import annotations

import random

# Waits after failed attempts 1 to 8; attempt 9 failing ends the delivery.
WAITS_SECONDS: tuple[float, ...] = (5, 30, 120, 600, 1800, 7200, 28800, 57600)
MAX_ATTEMPTS = len(WAITS_SECONDS) + 1
JITTER = 0.2


def wait_after(attempt: int, *, scale: float = 1.0, rng: random.Random | None = None) -> float | None:
    """Seconds to wait after failed attempt number `attempt` (1-based), or None when it was the last.

    `scale` shortens the whole schedule (tests); the jitter stays ±20 % of the scaled wait.
    """
    if attempt >= MAX_ATTEMPTS:
        return None
    jitter = (rng or random).uniform(1 - JITTER, 1 + JITTER)
    return WAITS_SECONDS[attempt - 1] * scale * jitter
