"""When the agent asks its backend for its printers again, and whether the answer goes to the
gateway: a poll on a bounded, jittered interval, and a report only when something changed.

Thousands of agents poll their spoolers; only a change reaches the service, so an unchanged fleet
costs the service nothing. The jitter keeps agents started together (after an outage) from
asking in step, and a backend that signals its changes is still heard at most once a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Sequence

from printcloud.protocol.messages import PrinterReport

MIN_POLL_SECONDS = 1.0
MAX_POLL_SECONDS = 300.0
# Each wait is the interval give or take this fraction of it.
JITTER = 0.2
MIN_CHECK_GAP_SECONDS = 1.0


def bounded_poll(seconds: float) -> float:
    return min(max(seconds, MIN_POLL_SECONDS), MAX_POLL_SECONDS)


def printers_differ(current: Sequence[PrinterReport], reported: Sequence[PrinterReport]) -> bool:
    """Whether `current` says anything `reported` did not; the order a spooler lists them in is not news."""
    return {p.name: p for p in current} != {p.name: p for p in reported} or len(current) != len(reported)


class PrinterWatch:
    def __init__(
        self,
        poll_seconds: float,
        changed: asyncio.Event | None = None,
        *,
        uniform: Callable[[float, float], float] = random.uniform,
    ) -> None:
        self.poll_seconds = bounded_poll(poll_seconds)
        self._changed = changed
        self._uniform = uniform
        self._last_check = -MIN_CHECK_GAP_SECONDS

    def next_delay(self) -> float:
        return self.poll_seconds * self._uniform(1 - JITTER, 1 + JITTER)

    async def next_check(self) -> None:
        """Returns when the printers are due to be asked again."""
        delay = self.next_delay()
        if self._changed is None:
            await asyncio.sleep(delay)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), delay)
            self._changed.clear()
        gap = self._last_check + MIN_CHECK_GAP_SECONDS - time.monotonic()
        if gap > 0:
            await asyncio.sleep(gap)
        self._last_check = time.monotonic()
