"""Speed machinery: a large document hashed in a worker thread (docs/performance.md, "Speed machinery").

Hashing a 25 MB document on the event loop would hold every other request of the process for the
while; hashlib releases the GIL, so in a thread it does not. Work that holds the GIL (parsing,
base64) gains little there. Small inputs stay on the loop: a thread hop costs about what the work
it would move does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Below it, the work costs about as much as the hop to a thread.
OFF_LOOP_MIN_BYTES = 256 * 1024


async def cpu_bound(size: int, function: Callable[..., T], *args: object) -> T:
    """`function(*args)`, in a worker thread when the input is `size` bytes or more."""
    if size < OFF_LOOP_MIN_BYTES:
        return function(*args)
    return await asyncio.to_thread(function, *args)
