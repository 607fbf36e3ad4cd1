"""The event types of the public contract (spec, "Subscribable event types")."""

from __future__ import annotations

from printcloud.contracts.enums import SUBSCRIBABLE

__all__ = ["PING", "SUBSCRIBABLE", "is_public"]


# Test deliveries only: never subscribable, never in the feed.
PING = "ping"


def is_public(event_type: str) -> bool:
    """Whether a domain event becomes a feed event and deliveries (internal ones such as
    `organization.created` do not)."""
    return event_type in SUBSCRIBABLE
