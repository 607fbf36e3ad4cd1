"""The event types of the public contract (spec, "Subscribable event types")."""

from __future__ import annotations

SUBSCRIBABLE: tuple[str, ...] = (
    "printjob.queued",
    "printjob.sent",
    "printjob.received",
    "printjob.printing",
    "printjob.done",
    "printjob.error",
    "printjob.cancelled",
    "printjob.expired",
    "computer.online",
    "computer.offline",
    "printer.added",
    "printer.removed",
    "printer.online",
    "printer.offline",
    "printer.updated",
)

# Test deliveries only: never subscribable, never in the feed.
PING = "ping"


def is_public(event_type: str) -> bool:
    """Whether a domain event becomes a feed event and deliveries (internal ones such as
    `organization.created` do not)."""
    return event_type in SUBSCRIBABLE
