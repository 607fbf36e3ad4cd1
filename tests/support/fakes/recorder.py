"""The calls a fake received, in order, with a way to wait for one and to make the next one fail."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.metadata: list[dict[str, str]] = []
        self._failures: dict[str, list[BaseException]] = {}
        self._changed = asyncio.Event()

    def add(self, name: str, request: Any, context: Any = None) -> None:
        """Records the call, then raises the failure queued for `name`, if any."""
        self.calls.append((name, request))
        if context is not None:
            pairs = context.invocation_metadata() or ()
            self.metadata.append({key: value for key, value in pairs if isinstance(value, str)})
        self._changed.set()
        queued = self._failures.get(name)
        if queued:
            raise queued.pop(0)

    def fail_next(self, name: str, error: BaseException) -> None:
        """The next call of `name` raises `error` (an `ApiError` answers its code; anything else is
        the service crashing)."""
        self._failures.setdefault(name, []).append(error)

    @property
    def requests(self) -> list[Any]:
        return [request for _, request in self.calls]

    def named(self, name: str) -> list[Any]:
        return [request for called, request in self.calls if called == name]

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()
