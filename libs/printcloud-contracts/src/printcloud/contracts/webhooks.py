"""Webhook endpoints and their deliveries."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictBool, StrictStr

from printcloud.contracts.base import Contract, JsonInt, NonNegativeInt, PositiveInt, Timestamp, Uuid
from printcloud.contracts.enums import DeliveryStatus, EventType, Mode
from printcloud.contracts.events import WebhookPayload
from printcloud.contracts.resources import Page


class WebhookEndpoint(Contract):
    id: Uuid
    url: str
    description: str
    events: list[EventType]
    enabled: StrictBool
    disabledReason: str | None = Field(description="Set when the endpoint was disabled automatically")
    mode: Mode = Field(description="The endpoint receives events of this mode only")
    createdAt: Timestamp
    updatedAt: Timestamp


class CreatedWebhookEndpoint(WebhookEndpoint):
    secret: Annotated[StrictStr, Field(pattern="^whsec_")] = Field(
        description="The signing secret, shown in this response only"
    )


class DeliveryAttempt(Contract):
    attempt: PositiveInt
    sentAt: Timestamp
    responseCode: JsonInt | None = Field(description="Null when no answer came")
    responseBodyExcerpt: str = Field(description="First 2048 characters of the answer, or the network error")
    requestHeaders: dict[str, str] = Field(
        description="The headers the attempt was sent with (signed afresh each attempt); empty when it was not sent"
    )


class WebhookDelivery(Contract):
    id: Uuid
    endpointId: Uuid
    eventId: Uuid = Field(description="Also the `webhook-id` header")
    eventType: EventType | Literal["ping"] = Field(description="The event's type, or `ping` for a test delivery")
    payload: WebhookPayload = Field(description="The exact envelope sent as the request body")
    attempt: NonNegativeInt = Field(description="Sends made so far")
    status: DeliveryStatus
    responseCode: JsonInt | None
    responseBodyExcerpt: str | None
    nextAttemptAt: Timestamp | None
    deliveredAt: Timestamp | None
    createdAt: Timestamp
    attempts: list[DeliveryAttempt] = Field(description="Every attempt, oldest first")


class WebhookEndpointPage(Page[WebhookEndpoint]):
    pass


class WebhookDeliveryPage(Page[WebhookDelivery]):
    pass
