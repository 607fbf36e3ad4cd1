"""When to tell an agent refused in a reconnect storm to come back.

A replica with `max_connecting` agents in their handshake refuses the next with a 503. Left to
its own backoff, an agent refused five or six times sleeps up to a minute, and the last agents of
a storm came back long after the replica had room for them. Instead, each refusal carries a
`Retry-After`, drawn evenly from one second up to a horizon: the horizon within which the agents
already told to wait, coming back evenly, arrive `ATTEMPTS_PER_HANDSHAKE` times as fast as the
replica admits agents. Agents wait for what they are told (and spread over the second after it),
so the replica sets the pace of their return: refusing stays a bounded part of its work, its
places are refilled as they free up, and the horizon shortens as the crowd waiting thins out.

The pace is measured while the replica refuses, as the agents it admits a second (it admits one
as a place frees). The first second's count includes filling every place, more than it can keep
up: the first waits come out short, and the agents refused again are told from a better
measure. Erring short costs refusals, which are cheap; erring long costs the idle seconds that
fixed appointments at a pace measured in the first seconds did (docs/performance.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

# Attempts a second the replica invites for every agent it admits a second: enough that its places
# are refilled as they free up, few enough that refusing is a small part of its work.
ATTEMPTS_PER_HANDSHAKE = 2.0
# As long as the agent's own backoff waits at most: no agent waits longer for being told.
LONGEST_WAIT_SECONDS = 60


class ReturnPacing:
    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        longest_wait_seconds: int = LONGEST_WAIT_SECONDS,
    ) -> None:
        self._clock = clock
        self._rng = rng or random.Random()
        self._longest = longest_wait_seconds
        self._pace = 0.0  # agents admitted a second while others were refused
        self._second = int(clock())
        self._admitted = 0
        self._refusing = False  # in this second
        # Agents told to come back, by the second they were told to come back in.
        self._due: dict[int, int] = {}
        self._waiting = 0

    def admitted(self) -> None:
        """An agent began its handshake."""
        self._roll()
        self._admitted += 1

    def refused(self) -> int:
        """An agent was refused: the whole seconds to tell it to wait."""
        self._roll()
        self._refusing = True
        wait = self._rng.randint(1, round(self._horizon()))
        due = self._second + wait
        self._due[due] = self._due.get(due, 0) + 1
        self._waiting += 1
        return wait

    def waiting(self) -> int:
        """Agents told to come back whose time has not come yet. Reads only (a metrics scrape)."""
        second = int(self._clock())
        return sum(count for due, count in tuple(self._due.items()) if due > second)

    def horizon_seconds(self) -> float:
        """The longest wait an agent refused now is told."""
        self._roll()
        return self._horizon()

    def _horizon(self) -> float:
        # The waiting agents, coming back evenly within it (half of it on average), arrive
        # `ATTEMPTS_PER_HANDSHAKE` times as fast as the replica admits them.
        pace = self._pace or max(self._admitted, 1)
        return min(max(2.0 * self._waiting / (ATTEMPTS_PER_HANDSHAKE * pace), 1.0), float(self._longest))

    def _roll(self) -> None:
        second = int(self._clock())
        if second == self._second:
            return
        if self._refusing:
            # While some are refused the replica is full and admits an agent as a place frees: its
            # admissions measure what it can do (an idle replica's would measure demand). The
            # first second's include filling the places, too many: agents then come back sooner
            # than there is room, and are told again from a better measure.
            # The counts are of one second, `self._second`; the pace moves a quarter of the way to
            # each, so that one slow second (a batch of hellos answered just after it) does not
            # swing it.
            measured = float(self._admitted)
            self._pace = max(measured if not self._pace else (3 * self._pace + measured) / 4, 1.0)
        if second - self._second > self._longest:
            self._due.clear()
            self._waiting = 0
        for passed in range(self._second + 1, second + 1) if self._due else ():
            self._waiting -= self._due.pop(passed, 0)
        self._second = second
        self._admitted = 0
        self._refusing = False
