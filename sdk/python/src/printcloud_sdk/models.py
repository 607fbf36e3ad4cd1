"""Models of the PrintCloud API, generated from its OpenAPI document by tools/generate_models.py.

Do not edit: change the server's contract models, then run `make sdk`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from printcloud_sdk._base import ApiEnum, ApiIntEnum, ApiModel


class Actor(ApiEnum):
    """Who made a job's state change."""

    API = "api"
    USER = "user"
    AGENT = "agent"
    SYSTEM = "system"


class BasicAuthCredentials(ApiModel):
    user: str
    pass_: str = Field(alias="pass")


class Capabilities(ApiModel):
    """What the installed driver offers, read from the operating system by the agent. Sizes are in tenths of a millimetre."""

    papers: dict[str, list[int | None]] = Field(
        description="Paper name to [width, height]; options `paper` takes these names"
    )
    bins: list[str] = Field(description="Values of option `bin`")
    dpis: list[str] = Field(description="Values of option `dpi`, such as `600x600`")
    medias: list[str] = Field(description="Values of option `media` (may be empty)")
    duplex: bool = Field(description="Two-sided printing supported")
    color: bool = Field(description="Colour printing supported")
    collate: bool = Field(description="Collating supported")
    copies: int = Field(description="Largest copy count accepted")
    nup: list[int] = Field(description="Pages per sheet offered")
    extent: list[list[int]] | None = Field(
        description="Range of custom paper sizes: [[minWidth, minHeight], [maxWidth, maxHeight]]"
    )
    printrate: PrintRate | None = Field(description="Rated speed")
    supports_custom_paper_size: bool


class CodeEnrollment(ApiModel):
    """Enrolment with a pairing code instead of an API key (docs/api.md, "Pairing codes")."""

    hostname: str = Field(description="The computer's host name; its name unless `name` is given")
    name: str | None = None
    code: str = Field(
        description="The pairing code as given, such as `7K4M-9QXP-3T8D`; case, spaces and dashes do not matter"
    )


class Computer(ApiModel):
    id: str
    name: str = Field(description="Settable by PATCH")
    hostname: str = Field(description="Reported by the agent")
    os: str = Field(description="Operating system family")
    os_version: str = Field(alias="osVersion")
    arch: str = Field(description="CPU architecture")
    agent_version: str = Field(alias="agentVersion")
    mode: Mode
    state: ComputerState
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    last_seen_at: datetime | None = Field(alias="lastSeenAt")


class ComputerEnrollment(ApiModel):
    hostname: str = Field(description="The computer's host name; its name unless `name` is given")
    name: str | None = None


class ComputerEventData(ApiModel):
    id: str
    name: str
    state: ComputerState


class ComputerOfflineEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["computer.offline"]
    data: ComputerEventData


class ComputerOnlineEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["computer.online"]
    data: ComputerEventData


class ComputerPage(ApiModel):
    data: list[Computer]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class ComputerState(ApiEnum):
    ONLINE = "online"
    OFFLINE = "offline"
    DISABLED = "disabled"


class ComputerUpdate(ApiModel):
    name: str | None = Field(None, description="Surrounding blanks are trimmed")
    enabled: bool | None = Field(None, description="false disables the computer and disconnects its agent")


class ContentAuthentication(ApiModel):
    type: Literal["BasicAuth"]
    credentials: BasicAuthCredentials


class ContentType(ApiEnum):
    PDF_URI = "pdf_uri"
    PDF_BASE64 = "pdf_base64"
    RAW_URI = "raw_uri"
    RAW_BASE64 = "raw_base64"


class CreatedPairingCode(ApiModel):
    id: str
    hint: str = Field(description="The code's first group, to tell codes apart; the rest is never shown again")
    description: str
    mode: Mode
    max_uses: int = Field(alias="maxUses")
    uses: int = Field(description="Computers the code has enrolled")
    uses_left: int = Field(alias="usesLeft")
    state: PairingCodeState
    expires_at: datetime = Field(alias="expiresAt", description="ISO 8601 date-time, UTC")
    revoked_at: datetime | None = Field(alias="revokedAt")
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    code: str = Field(description="Shown in this response only: give it to whoever enrols the computers")


class CreatedWebhookEndpoint(ApiModel):
    id: str
    url: str
    description: str
    events: list[EventType]
    enabled: bool
    disabled_reason: str | None = Field(
        alias="disabledReason", description="Set when the endpoint was disabled automatically"
    )
    mode: Mode = Field(description="The endpoint receives events of this mode only")
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    updated_at: datetime = Field(alias="updatedAt", description="ISO 8601 date-time, UTC")
    secret: str = Field(description="The signing secret, shown in this response only")


class CustomPaper(ApiModel):
    """A paper size of the user's, usable as the `paper` option once saved. Sizes in tenths of a millimetre."""

    name: str
    width: int
    height: int


class DeliveryAttempt(ApiModel):
    attempt: int
    sent_at: datetime = Field(alias="sentAt", description="ISO 8601 date-time, UTC")
    response_code: int | None = Field(alias="responseCode", description="Null when no answer came")
    response_body_excerpt: str = Field(
        alias="responseBodyExcerpt", description="First 2048 characters of the answer, or the network error"
    )
    request_headers: dict[str, str] = Field(
        alias="requestHeaders",
        description="The headers the attempt was sent with (signed afresh each attempt); empty when it was not sent",
    )


class DeliveryStatus(ApiEnum):
    PENDING = "pending"
    RETRYING = "retrying"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class DocumentByUrl(ApiModel):
    """Fetched once after creation; `authentication` for a URL behind Basic authentication."""

    printer_id: str = Field(alias="printerId")
    title: str
    source: str | None = None
    qty: int | None = None
    expire_after: int | None = Field(None, alias="expireAfter")
    options: PrintOptions | None = None
    content_type: str = Field(alias="contentType")
    content: str
    authentication: ContentAuthentication | None = None


class Duplex(ApiEnum):
    LONG_EDGE = "long-edge"
    SHORT_EDGE = "short-edge"
    ONE_SIDED = "one-sided"


class EmptyData(ApiModel):
    pass


class Enrollment(ApiModel):
    computer_id: str = Field(alias="computerId")
    credential: str = Field(description="The agent's credential, shown once")
    agent_gateway_url: str = Field(alias="agentGatewayUrl", description="Where the agent connects")


class Error(ApiModel):
    """Every error answer, whatever its status."""

    error: ErrorDetail


class ErrorCode(ApiEnum):
    """Stable, machine-readable error codes."""

    INVALID_REQUEST = "invalid_request"
    UNAUTHORIZED = "unauthorized"
    INSUFFICIENT_SCOPE = "insufficient_scope"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    REQUEST_TIMEOUT = "request_timeout"
    IDEMPOTENCY_IN_PROGRESS = "idempotency_in_progress"
    NOT_CANCELLABLE = "not_cancellable"
    ENDPOINT_DISABLED = "endpoint_disabled"
    CONFLICT = "conflict"
    QUOTA_EXCEEDED = "quota_exceeded"
    FILE_EXPIRED = "file_expired"
    CONTENT_TOO_LARGE = "content_too_large"
    HEADERS_TOO_LARGE = "headers_too_large"
    INVALID_CONTENT = "invalid_content"
    INVALID_CONTENT_URL = "invalid_content_url"
    PRINTER_DISABLED = "printer_disabled"
    MODE_MISMATCH = "mode_mismatch"
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    INVALID_URL = "invalid_url"
    RATE_LIMITED = "rate_limited"
    TEST_MODE_DAILY_CAP = "test_mode_daily_cap"
    INTERNAL_ERROR = "internal_error"
    SERVICE_UNAVAILABLE = "service_unavailable"
    STORAGE_UNAVAILABLE = "storage_unavailable"


class ErrorDetail(ApiModel):
    code: ErrorCode
    message: str = Field(description="For humans; may change")
    request_id: str = Field(description="Equals the `X-Request-Id` header")
    upgrade_url: str | None = Field(None, description="Only on `quota_exceeded`: where the plan is changed")


class EventPage(ApiModel):
    data: list[Event]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class EventType(ApiEnum):
    """The subscribable event types (`ping` is for test deliveries only)."""

    PRINTJOB_QUEUED = "printjob.queued"
    PRINTJOB_SENT = "printjob.sent"
    PRINTJOB_RECEIVED = "printjob.received"
    PRINTJOB_PRINTING = "printjob.printing"
    PRINTJOB_DONE = "printjob.done"
    PRINTJOB_ERROR = "printjob.error"
    PRINTJOB_CANCELLED = "printjob.cancelled"
    PRINTJOB_EXPIRED = "printjob.expired"
    COMPUTER_ONLINE = "computer.online"
    COMPUTER_OFFLINE = "computer.offline"
    PRINTER_ADDED = "printer.added"
    PRINTER_REMOVED = "printer.removed"
    PRINTER_ONLINE = "printer.online"
    PRINTER_OFFLINE = "printer.offline"
    PRINTER_UPDATED = "printer.updated"


class FieldChange(ApiModel):
    """A changed field's value before and after."""

    from_: Any = Field(alias="from")
    to: Any


class JobState(ApiEnum):
    """`done`, `error`, `cancelled` and `expired` are terminal."""

    QUEUED = "queued"
    SENT = "sent"
    RECEIVED = "received"
    PRINTING = "printing"
    DONE = "done"
    ERROR = "error"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class JobStateChange(ApiModel):
    id: str
    state: JobState
    message: str | None
    actor: Actor
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")


class JobStateChangeList(ApiModel):
    data: list[JobStateChange] = Field(description="Every change, oldest first (no paging)")


class LivePrints(ApiModel):
    used: int = Field(description="Live prints counted this period: one per live job created")
    quota: int = Field(description="Live prints the plan allows per calendar month")
    remaining: int = Field(description="quota - used, never below 0")


class Mode(ApiEnum):
    """Every resource belongs to one mode; a key sees only its own mode's data."""

    LIVE = "live"
    TEST = "test"


class Organization(ApiModel):
    id: str
    name: str


class PairingCode(ApiModel):
    id: str
    hint: str = Field(description="The code's first group, to tell codes apart; the rest is never shown again")
    description: str
    mode: Mode
    max_uses: int = Field(alias="maxUses")
    uses: int = Field(description="Computers the code has enrolled")
    uses_left: int = Field(alias="usesLeft")
    state: PairingCodeState
    expires_at: datetime = Field(alias="expiresAt", description="ISO 8601 date-time, UTC")
    revoked_at: datetime | None = Field(alias="revokedAt")
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")


class PairingCodeCreate(ApiModel):
    description: str | None = Field(None, description="What the code is for, such as the rollout it belongs to")
    max_uses: int | None = Field(None, alias="maxUses", description="How many computers the code may enrol; default 1")
    expire_after: int | None = Field(
        None,
        alias="expireAfter",
        description="Seconds the code stays usable; default 86400 (24 hours), at most 604800 (7 days)",
    )


class PairingCodeEnrollment(ApiModel):
    id: str
    computer_id: str = Field(
        alias="computerId", description="The computer the code enrolled (it may have been deleted since)"
    )
    name: str = Field(description="The computer's name when it enrolled")
    hostname: str
    client_address: str = Field(
        alias="clientAddress", description="The address the agent enrolled from, as the API saw it"
    )
    enrolled_at: datetime = Field(alias="enrolledAt", description="ISO 8601 date-time, UTC")


class PairingCodeEnrollmentPage(ApiModel):
    data: list[PairingCodeEnrollment]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class PairingCodePage(ApiModel):
    data: list[PairingCode]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class PairingCodeState(ApiEnum):
    ACTIVE = "active"
    EXPIRED = "expired"
    USED_UP = "used_up"
    REVOKED = "revoked"


class PdfDocument(ApiModel):
    printer_id: str = Field(alias="printerId")
    title: str
    source: str | None = None
    qty: int | None = None
    expire_after: int | None = Field(None, alias="expireAfter")
    options: PrintOptions | None = None
    content_type: Literal["pdf_base64"] = Field(alias="contentType")
    content: str = Field(description="A PDF in standard base64")


class PingEvent(ApiModel):
    """A test delivery (`POST /v1/webhooks/{id}/ping`); never in the feed."""

    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["ping"]
    data: EmptyData


class PrintJob(ApiModel):
    id: str
    printer_id: str = Field(alias="printerId")
    computer_id: str = Field(alias="computerId")
    title: str
    content_type: ContentType = Field(alias="contentType", description="Copied from the original on a reprint")
    source: str = Field(description="Free text naming the submitting system")
    qty: int
    options: PrintOptions = Field(description="The options as stored")
    expire_after: int = Field(alias="expireAfter", description="Seconds")
    expires_at: datetime = Field(alias="expiresAt", description="ISO 8601 date-time, UTC")
    file_sha256: str = Field(
        alias="fileSha256", description="Hex SHA-256 of the stored file; empty until a URL job's file is fetched"
    )
    file_size: int = Field(alias="fileSize", description="Bytes")
    mode: Mode
    state: JobState
    state_message: str | None = Field(
        alias="stateMessage", description="Why a job failed, or which options were dropped"
    )
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    sent_at: datetime | None = Field(alias="sentAt")
    received_at: datetime | None = Field(alias="receivedAt")
    printing_at: datetime | None = Field(alias="printingAt")
    finished_at: datetime | None = Field(alias="finishedAt")


class PrintJobCancelledEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.cancelled"]
    data: PrintJob


class PrintJobDoneEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.done"]
    data: PrintJob


class PrintJobErrorEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.error"]
    data: PrintJob


class PrintJobExpiredEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.expired"]
    data: PrintJob


class PrintJobPage(ApiModel):
    data: list[PrintJob]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class PrintJobPrintingEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.printing"]
    data: PrintJob


class PrintJobQueuedEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.queued"]
    data: PrintJob


class PrintJobReceivedEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.received"]
    data: PrintJob


class PrintJobSentEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printjob.sent"]
    data: PrintJob


class PrintOptions(ApiModel):
    """Every option is optional; an omitted one is filled from the printer's `defaultOptions`. An option the printer cannot honour is dropped with a warning in the job's `stateMessage`."""

    copies: int | None = Field(None, description="Copies of each page range; at most the printer's `copies`")
    paper: str | None = Field(None, description="A name from the printer's `papers` or `customPapers`")
    duplex: Duplex | None = None
    color: bool | None = Field(None, description="`false` prints in grayscale")
    dpi: str | None = Field(None, description="From the printer's `dpis`, such as `600x600`")
    bin: str | None = Field(None, description="A paper tray or output bin from the printer's `bins`")
    media: str | None = Field(None, description="A media type from the printer's `medias`")
    collate: bool | None = Field(None, description="Keep multiple copies in page order")
    fit_to_page: bool | None = Field(None, description="Scale the page to the paper")
    rotate: Rotation | None = None
    pages: str | None = Field(
        None, description="Page numbers and ranges, such as `1-3,5`; no range may end before it starts"
    )
    nup: int | None = Field(None, description="Pages per sheet, from the printer's `nup`")


class PrintRate(ApiModel):
    rate: float
    unit: str = Field(description="Such as `ppm` (pages per minute)")


class Printer(ApiModel):
    id: str
    computer_id: str = Field(alias="computerId", description="The computer the printer is attached to")
    name: str
    os_name: str = Field(alias="osName", description="Name reported by the operating system")
    description: str = Field(description="Driver description")
    display_name: str = Field(alias="displayName", description="Settable by PATCH")
    remarks: str | None = Field(description="Settable by PATCH")
    enabled: bool = Field(description="The live switch: a printer that is not enabled refuses jobs (422)")
    is_default: bool = Field(alias="isDefault")
    state: PrinterState = Field(
        description="`online`: its computer is online and the printer can print (IPP `idle` or `processing`); `offline`: it cannot print now (IPP `stopped`, paused, not answering, its computer offline or disabled). docs/api.md, 'Printer state'"
    )
    state_reasons: list[str] = Field(
        alias="stateReasons",
        description="IPP printer-state-reasons keywords without their severity suffix, sorted, such as `media-empty`, `media-jam`, `door-open`, `toner-low`, `paused`, `offline`; empty when none",
    )
    state_detail: str = Field(
        alias="stateDetail",
        description="A sentence for people, built from the reasons and the printer's message; empty when the printer is healthy",
    )
    capabilities: Capabilities
    default_options: PrintOptions = Field(
        alias="defaultOptions", description="Options applied when a job omits them; settable by PATCH"
    )
    custom_papers: list[CustomPaper] = Field(
        alias="customPapers", description="Settable by PATCH; names unique on the printer"
    )
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    updated_at: datetime = Field(alias="updatedAt", description="ISO 8601 date-time, UTC")


class PrinterAddedData(ApiModel):
    state: PrinterState
    state_reasons: list[str] = Field(
        alias="stateReasons", description="IPP printer-state-reasons keywords, as on the printer"
    )
    state_detail: str = Field(alias="stateDetail")
    id: str
    computer_id: str = Field(alias="computerId")
    name: str
    display_name: str = Field(alias="displayName")


class PrinterAddedEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printer.added"]
    data: PrinterAddedData


class PrinterOfflineEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printer.offline"]
    data: PrinterStateData


class PrinterOnlineEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printer.online"]
    data: PrinterStateData


class PrinterPage(ApiModel):
    data: list[Printer]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class PrinterRemovedData(ApiModel):
    id: str
    computer_id: str = Field(alias="computerId")
    name: str


class PrinterRemovedEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printer.removed"]
    data: PrinterRemovedData


class PrinterState(ApiEnum):
    ONLINE = "online"
    OFFLINE = "offline"


class PrinterStateData(ApiModel):
    state: PrinterState
    state_reasons: list[str] = Field(
        alias="stateReasons", description="IPP printer-state-reasons keywords, as on the printer"
    )
    state_detail: str = Field(alias="stateDetail")
    id: str
    computer_id: str = Field(alias="computerId")


class PrinterUpdate(ApiModel):
    default_options: PrintOptions | None = Field(None, alias="defaultOptions")
    custom_papers: list[CustomPaper] | None = Field(
        None,
        alias="customPapers",
        description="Replaces the whole list. Paper names are unique on a printer: two papers with the same `name` are refused (400), which no JSON Schema keyword states (uniqueItems compares whole items).",
    )
    display_name: str | None = Field(None, alias="displayName")
    enabled: bool | None = None
    remarks: str | None | None = Field(None, description="null clears")


class PrinterUpdatedData(ApiModel):
    state: PrinterState
    state_reasons: list[str] = Field(
        alias="stateReasons", description="IPP printer-state-reasons keywords, as on the printer"
    )
    state_detail: str = Field(alias="stateDetail")
    id: str
    computer_id: str = Field(alias="computerId")
    changes: dict[str, FieldChange] = Field(description="Each changed public field of the printer")


class PrinterUpdatedEvent(ApiModel):
    id: str = Field(description="The event id: identical on every retry and replay, and the `webhook-id` header")
    timestamp: datetime = Field(description="When the change happened")
    mode: Mode
    type: Literal["printer.updated"]
    data: PrinterUpdatedData


class RawDocument(ApiModel):
    printer_id: str = Field(alias="printerId")
    title: str
    source: str | None = None
    qty: int | None = None
    expire_after: int | None = Field(None, alias="expireAfter")
    options: PrintOptions | None = None
    content_type: Literal["raw_base64"] = Field(alias="contentType")
    content: str = Field(description="Standard base64")


class Reprint(ApiModel):
    """The stored file of an earlier job of this organization and mode, printed again; `source` and `qty` describe the new job as they do a new document's."""

    printer_id: str = Field(alias="printerId")
    title: str
    reprint_of: str = Field(alias="reprintOf")
    source: str | None = None
    qty: int | None = None


class Role(ApiEnum):
    OWNER = "owner"
    MEMBER = "member"


class Rotation(ApiIntEnum):
    """Degrees."""

    VALUE_0 = 0
    VALUE_90 = 90
    VALUE_180 = 180
    VALUE_270 = 270


class SessionUser(ApiModel):
    id: str
    email: str
    role: Role


class SortDirection(ApiEnum):
    """`asc`: oldest first; `desc`: newest first."""

    ASC = "asc"
    DESC = "desc"


class TestJobs(ApiModel):
    today: int = Field(description="Test jobs created this UTC day")
    daily_cap: int = Field(alias="dailyCap", description="Test jobs allowed per UTC day")
    remaining: int
    period: UsagePeriod


class Usage(ApiModel):
    """The organization's usage, the same for its live and test keys."""

    plan: str
    period: UsagePeriod = Field(description="The calendar month (UTC) live prints are counted in")
    live_prints: LivePrints = Field(alias="livePrints")
    test_jobs: TestJobs = Field(alias="testJobs")
    upgrade_url: str = Field(alias="upgradeUrl", description="Where the plan is changed")


class UsagePeriod(ApiModel):
    start: str = Field(description="First instant of the period (UTC)")
    end: str = Field(description="First instant of the next period (UTC)")


class WebhookCreate(ApiModel):
    url: str = Field(description="https; test-mode endpoints may use http; must resolve to a public address")
    description: str | None = None
    events: list[EventType]


class WebhookDelivery(ApiModel):
    id: str
    endpoint_id: str = Field(alias="endpointId")
    event_id: str = Field(alias="eventId", description="Also the `webhook-id` header")
    event_type: EventType | Literal["ping"] = Field(
        alias="eventType", description="The event's type, or `ping` for a test delivery"
    )
    payload: WebhookPayload = Field(description="The exact envelope sent as the request body")
    attempt: int = Field(description="Sends made so far")
    status: DeliveryStatus
    response_code: int | None = Field(alias="responseCode")
    response_body_excerpt: str | None = Field(alias="responseBodyExcerpt")
    next_attempt_at: datetime | None = Field(alias="nextAttemptAt")
    delivered_at: datetime | None = Field(alias="deliveredAt")
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    attempts: list[DeliveryAttempt] = Field(description="Every attempt, oldest first")


class WebhookDeliveryPage(ApiModel):
    data: list[WebhookDelivery]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class WebhookEndpoint(ApiModel):
    id: str
    url: str
    description: str
    events: list[EventType]
    enabled: bool
    disabled_reason: str | None = Field(
        alias="disabledReason", description="Set when the endpoint was disabled automatically"
    )
    mode: Mode = Field(description="The endpoint receives events of this mode only")
    created_at: datetime = Field(alias="createdAt", description="ISO 8601 date-time, UTC")
    updated_at: datetime = Field(alias="updatedAt", description="ISO 8601 date-time, UTC")


class WebhookEndpointPage(ApiModel):
    data: list[WebhookEndpoint]
    has_more: bool = Field(alias="hasMore")
    next_cursor: str | None = Field(
        alias="nextCursor", description="Id of the last item; the `after` sent when the page is empty"
    )


class WebhookUpdate(ApiModel):
    url: str | None = None
    description: str | None = None
    events: list[EventType] | None = None
    enabled: bool | None = Field(None, description="true re-enables an endpoint")


class Whoami(ApiModel):
    api_key_id: str | None = Field(alias="apiKeyId", description="Null for a dashboard session")
    mode: Mode
    organization: Organization
    plan: str
    user: SessionUser | None = Field(None, description="Only for a dashboard session")


# An event of the feed, and the body of its webhook deliveries: `type` tells what `data` holds.
Event = Annotated[
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
    | PrinterUpdatedEvent,
    Field(discriminator="type"),
]

# A new document (by URL or as base64) or a reprint of an earlier job's file.
PrintJobCreate = DocumentByUrl | PdfDocument | RawDocument | Reprint

# What a webhook receiver gets: an event, or a ping.
WebhookPayload = Annotated[
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
    | PingEvent,
    Field(discriminator="type"),
]

BasicAuthCredentials.model_rebuild()
Capabilities.model_rebuild()
CodeEnrollment.model_rebuild()
Computer.model_rebuild()
ComputerEnrollment.model_rebuild()
ComputerEventData.model_rebuild()
ComputerOfflineEvent.model_rebuild()
ComputerOnlineEvent.model_rebuild()
ComputerPage.model_rebuild()
ComputerUpdate.model_rebuild()
ContentAuthentication.model_rebuild()
CreatedPairingCode.model_rebuild()
CreatedWebhookEndpoint.model_rebuild()
CustomPaper.model_rebuild()
DeliveryAttempt.model_rebuild()
DocumentByUrl.model_rebuild()
EmptyData.model_rebuild()
Enrollment.model_rebuild()
Error.model_rebuild()
ErrorDetail.model_rebuild()
EventPage.model_rebuild()
FieldChange.model_rebuild()
JobStateChange.model_rebuild()
JobStateChangeList.model_rebuild()
LivePrints.model_rebuild()
Organization.model_rebuild()
PairingCode.model_rebuild()
PairingCodeCreate.model_rebuild()
PairingCodeEnrollment.model_rebuild()
PairingCodeEnrollmentPage.model_rebuild()
PairingCodePage.model_rebuild()
PdfDocument.model_rebuild()
PingEvent.model_rebuild()
PrintJob.model_rebuild()
PrintJobCancelledEvent.model_rebuild()
PrintJobDoneEvent.model_rebuild()
PrintJobErrorEvent.model_rebuild()
PrintJobExpiredEvent.model_rebuild()
PrintJobPage.model_rebuild()
PrintJobPrintingEvent.model_rebuild()
PrintJobQueuedEvent.model_rebuild()
PrintJobReceivedEvent.model_rebuild()
PrintJobSentEvent.model_rebuild()
PrintOptions.model_rebuild()
PrintRate.model_rebuild()
Printer.model_rebuild()
PrinterAddedData.model_rebuild()
PrinterAddedEvent.model_rebuild()
PrinterOfflineEvent.model_rebuild()
PrinterOnlineEvent.model_rebuild()
PrinterPage.model_rebuild()
PrinterRemovedData.model_rebuild()
PrinterRemovedEvent.model_rebuild()
PrinterStateData.model_rebuild()
PrinterUpdate.model_rebuild()
PrinterUpdatedData.model_rebuild()
PrinterUpdatedEvent.model_rebuild()
RawDocument.model_rebuild()
Reprint.model_rebuild()
SessionUser.model_rebuild()
TestJobs.model_rebuild()
Usage.model_rebuild()
UsagePeriod.model_rebuild()
WebhookCreate.model_rebuild()
WebhookDelivery.model_rebuild()
WebhookDeliveryPage.model_rebuild()
WebhookEndpoint.model_rebuild()
WebhookEndpointPage.model_rebuild()
WebhookUpdate.model_rebuild()
Whoami.model_rebuild()
