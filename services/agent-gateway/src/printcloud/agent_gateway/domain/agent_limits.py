"""What one agent connection may send: how often, how many printers, how large their capabilities.

An agent is a program on a customer's computer and its messages are input like any other: without
bounds, one agent could flood its gateway replica with messages, or devices with thousands of
printers and megabytes of capabilities.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from printcloud.protocol.messages import MessageBounds


@dataclass(frozen=True)
class AgentLimits:
    # A whole WebSocket message (the `hello` with every printer is the largest).
    max_message_bytes: int = 1024 * 1024
    max_printers: int = 250
    # One printer's capabilities, as JSON.
    max_capabilities_bytes: int = 64 * 1024
    # Containers within containers in one message; the protocol's own go four deep.
    max_depth: int = 16
    # Sustained messages per second, and how many may come at once. A job costs its agent three
    # reports (received, printing, done), and one API key may create 20 jobs a second (spec,
    # "Limits"), all for one computer: 60 a second is a legitimate agent, and an agent closed for
    # keeping up with its own jobs would reconnect, re-report, and be closed again. An agent that
    # reconnects re-reports each unfinished job's chain of states together: the burst.
    messages_per_second: float = 100.0
    message_burst: int = 500
    # Messages waiting to go to one agent, and how long one may take to leave: past either, the
    # agent is not keeping up and is closed so that it reconnects.
    max_queued_messages: int = 256
    send_timeout_seconds: float = 10.0
    # Agents between their connection and their welcome, on one replica. Past this many, an agent
    # is told at once to come back later (503 to its upgrade request; it retries after its
    # backoff), rather than queued behind a storm of reconnects (a replica restart, an outage)
    # until its handshake times out and the work done for it is lost. Their calls to devices go in
    # batches, one call of each kind at a time from a replica, so a higher limit makes the batches
    # larger rather than loading devices with more calls at once.
    max_connecting: int = 256

    @property
    def message_bounds(self) -> MessageBounds:
        """The bounds the protocol's parsing applies to each message."""
        return MessageBounds(max_printers=self.max_printers, max_capabilities_bytes=self.max_capabilities_bytes)


class TokenBucket:
    """`burst` messages at once, then `rate` per second."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.updated = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True
