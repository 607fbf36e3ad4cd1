"""The event types of the public contract (spec, "Subscribable event types"): webhooks deliver them,
the dashboard offers them; and the statuses of a delivery of one (spec, "Webhook delivery"). Defined
in `printcloud.contracts.enums`."""

from __future__ import annotations

from printcloud.contracts.enums import DeliveryStatus, EventType

SUBSCRIBABLE: tuple[str, ...] = tuple(event_type.value for event_type in EventType)

DELIVERY_STATUSES: tuple[str, ...] = tuple(status.value for status in DeliveryStatus)
