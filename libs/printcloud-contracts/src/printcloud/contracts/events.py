"""Events: the envelope each webhook delivery sends as its body and the event feed lists, one
model per event type so that `type` tells what `data` holds."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, RootModel

from printcloud.contracts.base import Contract, Timestamp, Uuid
from printcloud.contracts.enums import ComputerState, Mode, PrinterState
from printcloud.contracts.resources import Page, PrintJob


class _Envelope(Contract):
    id: Uuid = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: Timestamp = Field(description="When the change happened")
    mode: Mode


class ComputerEventData(Contract):
    id: Uuid
    name: str
    state: ComputerState


class PrinterCondition(Contract):
    """Whether a printer can print and why not, as every `printer.*` event but `printer.removed`
    carries it (the same fields as the printer's)."""

    state: PrinterState
    stateReasons: list[str] = Field(description="IPP printer-state-reasons keywords, as on the printer")
    stateDetail: str


class PrinterAddedData(PrinterCondition):
    id: Uuid
    computerId: Uuid
    name: str
    displayName: str


class PrinterRemovedData(Contract):
    id: Uuid
    computerId: Uuid
    name: str


class PrinterStateData(PrinterCondition):
    id: Uuid
    computerId: Uuid


class FieldChange(Contract):
    """A changed field's value before and after."""

    from_: Any = Field(alias="from")
    to: Any


class PrinterUpdatedData(PrinterCondition):
    id: Uuid
    computerId: Uuid
    changes: dict[str, FieldChange] = Field(description="Each changed public field of the printer")


class EmptyData(Contract):
    pass


# One class per type: `type` is the discriminator, `data` typed for it. `printjob.*` data is the
# print job as `GET /v1/printjobs/{id}` returns it.
class PrintJobQueuedEvent(_Envelope):
    type: Literal["printjob.queued"]
    data: PrintJob


class PrintJobSentEvent(_Envelope):
    type: Literal["printjob.sent"]
    data: PrintJob


class PrintJobReceivedEvent(_Envelope):
    type: Literal["printjob.received"]
    data: PrintJob


class PrintJobPrintingEvent(_Envelope):
    type: Literal["printjob.printing"]
    data: PrintJob


class PrintJobDoneEvent(_Envelope):
    type: Literal["printjob.done"]
    data: PrintJob


class PrintJobErrorEvent(_Envelope):
    type: Literal["printjob.error"]
    data: PrintJob


class PrintJobCancelledEvent(_Envelope):
    type: Literal["printjob.cancelled"]
    data: PrintJob


class PrintJobExpiredEvent(_Envelope):
    type: Literal["printjob.expired"]
    data: PrintJob


class ComputerOnlineEvent(_Envelope):
    type: Literal["computer.online"]
    data: ComputerEventData


class ComputerOfflineEvent(_Envelope):
    type: Literal["computer.offline"]
    data: ComputerEventData


class PrinterAddedEvent(_Envelope):
    type: Literal["printer.added"]
    data: PrinterAddedData


class PrinterRemovedEvent(_Envelope):
    type: Literal["printer.removed"]
    data: PrinterRemovedData


class PrinterOnlineEvent(_Envelope):
    type: Literal["printer.online"]
    data: PrinterStateData


class PrinterOfflineEvent(_Envelope):
    type: Literal["printer.offline"]
    data: PrinterStateData


class PrinterUpdatedEvent(_Envelope):
    type: Literal["printer.updated"]
    data: PrinterUpdatedData


class PingEvent(_Envelope):
    """A test delivery (`POST /v1/webhooks/{id}/ping`); never in the feed."""

    type: Literal["ping"]
    data: EmptyData


EVENT_MODELS: tuple[type[_Envelope], ...] = (
    PrintJobQueuedEvent,
    PrintJobSentEvent,
    PrintJobReceivedEvent,
    PrintJobPrintingEvent,
    PrintJobDoneEvent,
    PrintJobErrorEvent,
    PrintJobCancelledEvent,
    PrintJobExpiredEvent,
    ComputerOnlineEvent,
    ComputerOfflineEvent,
    PrinterAddedEvent,
    PrinterRemovedEvent,
    PrinterOnlineEvent,
    PrinterOfflineEvent,
    PrinterUpdatedEvent,
)

AnyEvent = (
    PrintJobQueuedEvent
    | PrintJobSentEvent
    | PrintJobReceivedEvent
    | PrintJobPrintingEvent
    | PrintJobDoneEvent
    | PrintJobErrorEvent
    | PrintJobCancelledEvent
    | PrintJobExpiredEvent
    | ComputerOnlineEvent
    | ComputerOfflineEvent
    | PrinterAddedEvent
    | PrinterRemovedEvent
    | PrinterOnlineEvent
    | PrinterOfflineEvent
    | PrinterUpdatedEvent
)


class Event(RootModel[Annotated[AnyEvent, Field(discriminator="type")]]):
    """An event of the feed, and the body of its webhook deliveries: `type` tells what `data` holds."""


class WebhookPayload(RootModel[Annotated[AnyEvent | PingEvent, Field(discriminator="type")]]):
    """What a webhook receiver gets: an event, or a ping."""


class EventPage(Page[Event]):
    pass


def _type_of(model: type[_Envelope]) -> str:
    event_type: str = get_args(model.model_fields["type"].annotation)[0]
    return event_type


# Each delivery's body by its `type`, pings included: the document's `webhooks`.
_DELIVERED: tuple[type[_Envelope], ...] = (*EVENT_MODELS, PingEvent)
DELIVERY_MODELS: dict[str, type[_Envelope]] = {_type_of(model): model for model in _DELIVERED}
