"""The closed sets of values of the public API, each a named type (so generated clients name them)."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Mode(StrEnum):
    """Every resource belongs to one mode; a key sees only its own mode's data."""

    live = "live"
    test = "test"


class JobState(StrEnum):
    """`done`, `error`, `cancelled` and `expired` are terminal."""

    queued = "queued"
    sent = "sent"
    received = "received"
    printing = "printing"
    done = "done"
    error = "error"
    cancelled = "cancelled"
    expired = "expired"


TERMINAL_JOB_STATES: frozenset[JobState] = frozenset(
    {JobState.done, JobState.error, JobState.cancelled, JobState.expired}
)
# A job can be cancelled until its agent has received it (the spec's 409 after that).
CANCELLABLE_JOB_STATES: frozenset[JobState] = frozenset({JobState.queued, JobState.sent})


class ContentType(StrEnum):
    pdf_uri = "pdf_uri"
    pdf_base64 = "pdf_base64"
    raw_uri = "raw_uri"
    raw_base64 = "raw_base64"


class EventType(StrEnum):
    """The subscribable event types (`ping` is for test deliveries only)."""

    printjob_queued = "printjob.queued"
    printjob_sent = "printjob.sent"
    printjob_received = "printjob.received"
    printjob_printing = "printjob.printing"
    printjob_done = "printjob.done"
    printjob_error = "printjob.error"
    printjob_cancelled = "printjob.cancelled"
    printjob_expired = "printjob.expired"
    computer_online = "computer.online"
    computer_offline = "computer.offline"
    printer_added = "printer.added"
    printer_removed = "printer.removed"
    printer_online = "printer.online"
    printer_offline = "printer.offline"
    printer_updated = "printer.updated"


# The spec's "Subscribable event types", as text: webhooks deliver them, the dashboard offers them.
SUBSCRIBABLE: tuple[str, ...] = tuple(event_type.value for event_type in EventType)
PING = "ping"


class ComputerState(StrEnum):
    online = "online"
    offline = "offline"
    disabled = "disabled"


class PrinterState(StrEnum):
    online = "online"
    offline = "offline"


class Actor(StrEnum):
    """Who made a job's state change."""

    api = "api"
    user = "user"
    agent = "agent"
    system = "system"


class DeliveryStatus(StrEnum):
    pending = "pending"
    retrying = "retrying"
    succeeded = "succeeded"
    failed = "failed"


# The statuses of a delivery (spec, "Webhook delivery"), as text: the delivery log's filter offers them.
DELIVERY_STATUSES: tuple[str, ...] = tuple(status.value for status in DeliveryStatus)


class Role(StrEnum):
    owner = "owner"
    member = "member"


class Duplex(StrEnum):
    long_edge = "long-edge"
    short_edge = "short-edge"
    one_sided = "one-sided"


class Rotation(IntEnum):
    """Degrees."""

    none = 0
    quarter = 90
    half = 180
    three_quarters = 270


class SortDirection(StrEnum):
    """`asc`: oldest first; `desc`: newest first."""

    asc = "asc"
    desc = "desc"


class PairingCodeState(StrEnum):
    active = "active"
    expired = "expired"
    used_up = "used_up"
    revoked = "revoked"
