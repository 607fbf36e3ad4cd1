"""Background chores: work a process does again and again for as long as it runs."""

from __future__ import annotations

import asyncio
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
