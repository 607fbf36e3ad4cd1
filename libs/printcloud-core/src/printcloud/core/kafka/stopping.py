"""aiokafka's clients stopped to the end.

Their `stop()` marks the client closed before it ends the tasks it runs (a consumer's heartbeats
and coordination, a producer's sender). A stop cut short by a cancellation (a service shutting
down, a member replaced by the next life of the broker's log) left those tasks running for good,
against a broker that may be gone, and a second stop did nothing. So a stop, once begun, runs to
its end; a caller cancelled meanwhile waits for that end before its cancellation goes on.
"""

from __future__ import annotations

import asyncio
from typing import Protocol


class Stoppable(Protocol):
    """`AIOKafkaConsumer` and `AIOKafkaProducer`."""

    async def stop(self) -> None: ...


async def stop_to_the_end(client: Stoppable) -> None:
    stopping = asyncio.ensure_future(client.stop())
    try:
        await asyncio.shield(stopping)
    except asyncio.CancelledError:
        await asyncio.wait([stopping])
        if not stopping.cancelled():
            stopping.exception()  # read: the caller is cancelled, and a failed stop is not news to it
        raise
