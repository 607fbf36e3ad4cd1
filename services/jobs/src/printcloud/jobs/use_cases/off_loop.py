"""CPU-heavy work on large inputs (parsing, decoding and hashing a 25 MB document) run in a
worker thread, so the event loop keeps serving every other request of the process meanwhile.

Small inputs stay on the loop: a thread hop costs more than the work it would move.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# About a millisecond of parsing or hashing: beyond it, the loop would visibly stall.
OFF_LOOP_MIN_BYTES = 256 * 1024


async def cpu_bound(size: int, function: Callable[..., T], *args: object) -> T:
    """`function(*args)`, in a worker thread when the input is `size` bytes or more."""
    if size < OFF_LOOP_MIN_BYTES:
        return function(*args)
    return await asyncio.to_thread(function, *args)
