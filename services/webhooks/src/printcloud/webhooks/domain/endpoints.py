"""Rules of webhook endpoints that need no I/O: fields, subscribable events, URL schemes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from printcloud.contracts.errors import ApiError, invalid
from printcloud.webhooks.domain.event_types import SUBSCRIBABLE

AUTO_DISABLED_REASON = "Disabled automatically after 5 days of failed deliveries"
MAX_URL_LENGTH = 2048
MAX_DESCRIPTION_LENGTH = 500


def schemes_for(mode: str) -> tuple[str, ...]:
    """`https:` for live endpoints; test-mode endpoints may also use `http:`."""
    return ("https",) if mode == "live" else ("http", "https")


def check_events(events: Sequence[str]) -> list[str]:
    """The subscribed types, deduplicated in the order given; each must be subscribable."""
    if not events:
        raise invalid("`events` must name at least one event type.")
    for event_type in events:
        if event_type not in SUBSCRIBABLE:
            raise invalid(f"`events` holds `{event_type}`, which is not a subscribable event type.")
    return list(dict.fromkeys(events))


def check_description(description: str) -> str:
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise invalid(f"`description` must be at most {MAX_DESCRIPTION_LENGTH} characters.")
    return description


def refused_url(reason: str) -> ApiError:
    return ApiError("invalid_url", f"The webhook URL is not allowed: {reason}.")


@dataclass(frozen=True)
class EndpointChanges:
    """What an update of an endpoint sets; None leaves a field as it is."""

    description: str | None = None
    events: Sequence[str] | None = None
    enabled: bool | None = None
    url: str | None = None
