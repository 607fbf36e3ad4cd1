"""What each endpoint sends, for the OpenAPI document only.

The routes still build their JSON with `printcloud.core.representations` (the same functions build
event `data`), so these models never touch a response; a contract test checks that what is sent
validates against them. Fields that are null at times are `X | None` and always present.
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

from printcloud.api_gateway.domain.print_jobs import CONTENT_TYPES, JOB_STATES
from printcloud.core.event_types import DELIVERY_STATUSES, SUBSCRIBABLE

Mode = Literal["live", "test"]
Uuid = str  # documented as `format: uuid` through `_UUID`; kept a plain string so nothing is parsed
_UUID: dict[str, JsonValue] = {"format": "uuid"}
Timestamp = AwareDatetime


def one_of(values: tuple[str, ...]) -> WithJsonSchema:
    return WithJsonSchema({"type": "string", "enum": list(values)})


JobState = Annotated[str, one_of(JOB_STATES)]
ContentType = Annotated[str, one_of(CONTENT_TYPES)]
EventType = Annotated[str, one_of(SUBSCRIBABLE)]
DeliveryEventType = Annotated[str, one_of((*SUBSCRIBABLE, "ping"))]


def uuid_field(description: str | None = None) -> Any:
    return Field(json_schema_extra=_UUID, description=description)


class Sent(BaseModel):
    # Exactly what is sent: a field added to a representation must be added here too (the contract
    # test fails until it is).
    model_config = ConfigDict(extra="forbid")


class Computer(Sent):
    id: Uuid = uuid_field()
    name: str
    hostname: str
    os: str
    osVersion: str
    arch: str
    agentVersion: str
    mode: Mode
    state: Literal["online", "offline", "disabled"]
    createdAt: Timestamp
    lastSeenAt: Timestamp | None


class CustomPaper(Sent):
    name: str
    width: int = Field(description="Tenths of a millimetre")
    height: int = Field(description="Tenths of a millimetre")


class Printer(Sent):
    id: Uuid = uuid_field()
    computerId: Uuid = uuid_field()
    name: str
    osName: str
    description: str
    displayName: str
    remarks: str | None
    enabled: bool = Field(description="The live switch: a printer that is not live refuses jobs")
    isDefault: bool
    state: Literal["online", "offline"]
    stateDetail: str
    capabilities: dict[str, Any] = Field(description="Read from the operating system by the agent (spec, Printer)")
    defaultOptions: dict[str, Any]
    customPapers: list[CustomPaper]
    createdAt: Timestamp
    updatedAt: Timestamp


class PrintJob(Sent):
    id: Uuid = uuid_field()
    printerId: Uuid = uuid_field()
    computerId: Uuid = uuid_field()
    title: str
    contentType: ContentType
    source: str
    qty: int = Field(ge=1, le=100)
    options: dict[str, Any]
    expireAfter: int = Field(ge=60, le=604800)
    expiresAt: Timestamp
    fileSha256: str = Field(description="Empty until the file of a URL job is fetched")
    fileSize: int = Field(ge=0)
    mode: Mode
    state: JobState
    stateMessage: str | None
    createdAt: Timestamp
    sentAt: Timestamp | None
    receivedAt: Timestamp | None
    printingAt: Timestamp | None
    finishedAt: Timestamp | None


class JobStateChange(Sent):
    id: Uuid = uuid_field()
    state: JobState
    message: str | None
    actor: Literal["api", "user", "agent", "system"]
    createdAt: Timestamp


class JobStateChanges(Sent):
    data: list[JobStateChange] = Field(description="Oldest first, every change, no paging")


class WebhookEndpoint(Sent):
    id: Uuid = uuid_field()
    url: str
    description: str
    events: list[EventType]
    enabled: bool
    disabledReason: str | None
    mode: Mode
    createdAt: Timestamp
    updatedAt: Timestamp


class CreatedWebhookEndpoint(WebhookEndpoint):
    secret: str = Field(pattern="^whsec_", description="Shown in this response only")


class DeliveryAttempt(Sent):
    attempt: int = Field(ge=1)
    sentAt: Timestamp
    responseCode: int | None
    responseBodyExcerpt: str
    requestHeaders: dict[str, str] = Field(
        description="The headers the attempt was sent with (signed afresh each attempt); empty when it was not sent"
    )


class WebhookDelivery(Sent):
    id: Uuid = uuid_field()
    endpointId: Uuid = uuid_field()
    eventId: Uuid = uuid_field()
    eventType: DeliveryEventType
    payload: dict[str, Any] = Field(description="The exact envelope sent as the request body")
    attempt: int = Field(ge=0)
    status: Annotated[str, one_of(DELIVERY_STATUSES)]
    responseCode: int | None
    responseBodyExcerpt: str | None
    nextAttemptAt: Timestamp | None
    deliveredAt: Timestamp | None
    createdAt: Timestamp
    attempts: list[DeliveryAttempt]


class Event(Sent):
    id: Uuid = uuid_field()
    type: EventType
    timestamp: Timestamp
    mode: Mode
    data: dict[str, Any]


class Organization(Sent):
    id: Uuid = uuid_field()
    name: str


class SessionUser(Sent):
    id: Uuid = uuid_field()
    email: str
    role: Literal["owner", "member"]


class Whoami(Sent):
    apiKeyId: Uuid | None = uuid_field("Null for a dashboard session")
    mode: Mode
    organization: Organization
    plan: str
    user: SessionUser | SkipJsonSchema[None] = Field(None, description="Only for a dashboard session")


class Enrollment(Sent):
    computerId: Uuid = uuid_field()
    credential: str = Field(description="The agent's credential, shown once")
    agentGatewayUrl: str


Item = TypeVar("Item", bound=BaseModel)


class Page(Sent, Generic[Item]):
    data: list[Item]
    hasMore: bool
    nextCursor: str | None = Field(description="Id of the last item; the `after` sent when the page is empty")


class ComputerPage(Page[Computer]):
    pass


class PrinterPage(Page[Printer]):
    pass


class PrintJobPage(Page[PrintJob]):
    pass


class WebhookEndpointPage(Page[WebhookEndpoint]):
    pass


class WebhookDeliveryPage(Page[WebhookDelivery]):
    pass


class EventPage(Page[Event]):
    pass
