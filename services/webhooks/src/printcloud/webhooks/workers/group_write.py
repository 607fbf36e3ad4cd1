"""Speed machinery: writes that arrive together go together (docs/performance.md, "Speed machinery").

Writes that arrive while one is under way wait for it to end and then go together, in one
transaction: under load a few dozen rows cost one round of statements instead of one each, and a
write that arrives alone goes at once, so nothing waits for a timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class GroupWrite(Generic[T]):
    """`write(items)` stores every item or raises; each `submit` returns once its own item is
    stored, or raises what the write of its group raised."""

    def __init__(self, write: Callable[[Sequence[T]], Awaitable[None]], *, max_items: int) -> None:
        self._write = write
        self._max_items = max_items
        self._waiting: list[tuple[T, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> None:
        stored = asyncio.get_running_loop().create_future()
        # Read the outcome even when the submitter stopped waiting, so asyncio does not report it.
        stored.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._waiting.append((item, stored))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_while_waiting())
        # A submitter that stops waiting does not take its item back: it is written all the same.
        await asyncio.shield(stored)

    async def close(self) -> None:
        """Stops writing; whoever still waits is cancelled."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)
        waiting, self._waiting = self._waiting, []
        for _, stored in waiting:
            stored.cancel()

    async def _write_while_waiting(self) -> None:
        group: list[tuple[T, asyncio.Future[None]]] = []
        try:
            while self._waiting:
                group, self._waiting = self._waiting[: self._max_items], self._waiting[self._max_items :]
                try:
                    await self._write([item for item, _ in group])
                except Exception as exc:  # noqa: BLE001 - handed to every submitter of the group
                    for _, stored in group:
                        if not stored.done():
                            stored.set_exception(exc)
                else:
                    for _, stored in group:
                        if not stored.done():
                            stored.set_result(None)
                group = []
        finally:
            for _, stored in group:
                stored.cancel()
            if self._writer is asyncio.current_task():
                self._writer = None
