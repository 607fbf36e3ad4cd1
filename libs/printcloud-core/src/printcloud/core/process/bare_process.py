"""The start every process without a database of its own shares, as `ServiceProcess` is for those
with one: the same steps in the same order, so that every `app.py` reads alike.

`BareProcess.start` sets up logs and telemetry; the caller builds its parts and hands them over
(`run`, `on_stop`); `run_until_stopped` serves the ops endpoint, marks the process ready and runs
it all until a stop signal or the failure of a part.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from printcloud.core.process.lifecycle import run_until_stopped, setup_process
from printcloud.core.settings import CommonSettings
from printcloud.core.telemetry.ops import Readiness, serve_ops


class Parts:
    """What every process holds while it starts: its background work, cancelled and awaited on
    stop, and its cleanups, run then in the reverse order of their registration."""

    def __init__(self, settings: CommonSettings, readiness: Readiness) -> None:
        self.settings = settings
        self.readiness = readiness
        self.tasks: list[Awaitable[Any]] = []
        self.cleanups: list[Callable[[], Awaitable[Any]]] = []

    def run(self, work: Awaitable[Any]) -> None:
        self.tasks.append(work)

    def on_stop(self, cleanup: Callable[[], Awaitable[Any]]) -> None:
        self.cleanups.append(cleanup)


class BareProcess(Parts):
    def __init__(self, settings: CommonSettings) -> None:
        # Ready once every part has started; a part that must hold first adds a gate (`require`).
        super().__init__(settings, Readiness())

    @classmethod
    def start(cls, settings: CommonSettings) -> BareProcess:
        setup_process(settings)
        return cls(settings)

    async def run_until_stopped(self) -> None:
        if self.settings.ops_port:
            settings = self.settings
            self.run(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port, self.readiness))
        self.readiness.mark_started()
        await run_until_stopped(self.tasks, self.cleanups)
