"""Background chores: work a process does again and again for as long as it runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


async def run_periodically(work: Callable[[], Awaitable[Any]], every_seconds: float, name: str) -> None:
    """Runs `work` now and every `every_seconds` after, forever. A failed run is logged and the
    next one comes on time: a background chore must not take its process down."""
    while True:
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("periodic work failed; will retry", extra={"work": name}, exc_info=True)
        await asyncio.sleep(every_seconds)


async def woken_or_after(wake: asyncio.Event, seconds: float) -> None:
    """Returns once `wake` is set or `seconds` have passed, whichever comes first. `timeout`, not
    `wait_for`: in Python 3.11 `wait_for` can swallow a cancellation that lands as the wait ends,
    and a loop waiting this way would never stop."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await wake.wait()
