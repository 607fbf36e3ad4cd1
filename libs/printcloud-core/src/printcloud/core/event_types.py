"""The event types of the public contract (spec, "Subscribable event types"): webhooks deliver them,
the dashboard offers them. Defined in `printcloud.contracts.enums.EventType`."""

from __future__ import annotations

from printcloud.contracts.enums import EventType

SUBSCRIBABLE: tuple[str, ...] = tuple(event_type.value for event_type in EventType)
