"""Restarts the stack's services that exit, as Kubernetes restarts a crashed container.

Each restart waits longer than the one before (1 s, 2 s, 4 s ... up to 30 s), so a service that
fails at start-up does not spin; a service that then stays up for a minute starts over at 1 s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
# Up this long after a restart, a service counts as recovered and its backoff starts over.
STABLE_AFTER_SECONDS = 60.0


class Restartable(Protocol):
    @property
    def running(self) -> bool: ...

    def start(self) -> None: ...


@dataclass
class _Backoff:
    delay: float = FIRST_DELAY_SECONDS
    exited_at: float | None = None
    started_at: float = 0.0
    restarts: int = 0


@dataclass
class Supervisor:
    services: dict[str, Restartable]
    say: Callable[[str], None]
    clock: Callable[[], float] = time.monotonic
    _state: dict[str, _Backoff] = field(default_factory=dict)

    def check(self) -> None:
        """Notes exits and restarts the services whose wait is over; call it every fraction of a second."""
        now = self.clock()
        for name, service in self.services.items():
            state = self._state.setdefault(name, _Backoff(started_at=now))
            if service.running:
                if state.restarts and now - state.started_at >= STABLE_AFTER_SECONDS:
                    state.delay = FIRST_DELAY_SECONDS
                continue
            if state.exited_at is None:
                state.exited_at = now
                self.say(f"service {name} exited; restarting it in {state.delay:.0f}s")
            elif now - state.exited_at >= state.delay:
                state.restarts += 1
                self.say(f"restarting service {name} (restart {state.restarts})")
                service.start()
                state.exited_at = None
                state.started_at = now
                state.delay = min(state.delay * 2, MAX_DELAY_SECONDS)
