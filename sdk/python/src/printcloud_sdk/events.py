"""Events as typed models: the feed's and the webhook deliveries' bodies, by `type`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from printcloud_sdk import models
from printcloud_sdk._base import ApiModel


class UnknownEvent(ApiModel):
    """An event of a type this SDK does not know (a newer server's): its envelope, `data` as sent."""

    id: str
    type: str
    timestamp: datetime
    mode: str
    data: dict[str, Any]


AnyEvent = models.Event | UnknownEvent
AnyDelivery = models.WebhookPayload | UnknownEvent

_EVENT: TypeAdapter[models.Event] = TypeAdapter(models.Event)
_DELIVERY: TypeAdapter[models.WebhookPayload] = TypeAdapter(models.WebhookPayload)
_KNOWN_EVENTS = set(models.EventType)


def parse_event(payload: dict[str, Any]) -> AnyEvent:
    """A feed event, typed by its `type`; `received_json()` gives it back as sent."""
    event: AnyEvent = (
        _EVENT.validate_python(payload)
        if payload.get("type") in _KNOWN_EVENTS
        else UnknownEvent.model_validate(payload)
    )
    event._received = payload
    return event


def parse_delivery(payload: dict[str, Any]) -> AnyDelivery:
    """A webhook delivery's body: an event or a ping."""
    if payload.get("type") != "ping" and payload.get("type") not in _KNOWN_EVENTS:
        return UnknownEvent.model_validate(payload)
    return _DELIVERY.validate_python(payload)
