"""The resources the API sends: computers, printers, print jobs and their history, the caller's
identity and usage, and the paged list envelope."""

from __future__ import annotations

from typing import Annotated, Generic, TypeVar

from pydantic import BeforeValidator, Field, StrictBool, StrictInt, StrictStr
from pydantic.json_schema import SkipJsonSchema

from printcloud.contracts.base import Contract, JsonInt, NonNegativeInt, Timestamp, Uuid, integral
from printcloud.contracts.enums import (
    Actor,
    ComputerState,
    ContentType,
    JobState,
    Mode,
    PrinterState,
    Role,
)
from printcloud.contracts.options import CustomPaper, PrintOptions

MAX_TITLE_LENGTH = 255
Title = Annotated[StrictStr, Field(min_length=1, max_length=MAX_TITLE_LENGTH)]
Quantity = Annotated[StrictInt, Field(ge=1, le=100), BeforeValidator(integral)]
# Seconds: at most 7 days, for a print job as for a pairing code.
MAX_EXPIRE_AFTER = 604800
ExpireAfter = Annotated[StrictInt, Field(ge=60, le=MAX_EXPIRE_AFTER), BeforeValidator(integral)]
# Tenths of a millimetre; null where the driver reports none (a roll has no fixed length).
Dimension = JsonInt | None
Size = Annotated[list[Dimension], Field(min_length=2, max_length=2, description="[width, height]")]
FixedSize = Annotated[list[JsonInt], Field(min_length=2, max_length=2, description="[width, height]")]


class Computer(Contract):
    id: Uuid
    name: str = Field(description="Settable by PATCH")
    hostname: str = Field(description="Reported by the agent")
    os: str = Field(description="Operating system family")
    osVersion: str
    arch: str = Field(description="CPU architecture")
    agentVersion: str
    mode: Mode
    state: ComputerState
    createdAt: Timestamp
    lastSeenAt: Timestamp | None


class PrintRate(Contract):
    rate: float
    unit: str = Field(description="Such as `ppm` (pages per minute)")


class Capabilities(Contract):
    """What the installed driver offers, read from the operating system by the agent. Sizes are in
    tenths of a millimetre."""

    papers: dict[str, Size] = Field(description="Paper name to [width, height]; options `paper` takes these names")
    bins: list[str] = Field(description="Values of option `bin`")
    dpis: list[str] = Field(description="Values of option `dpi`, such as `600x600`")
    medias: list[str] = Field(description="Values of option `media` (may be empty)")
    duplex: StrictBool = Field(description="Two-sided printing supported")
    color: StrictBool = Field(description="Colour printing supported")
    collate: StrictBool = Field(description="Collating supported")
    copies: JsonInt = Field(description="Largest copy count accepted")
    nup: list[JsonInt] = Field(description="Pages per sheet offered")
    extent: Annotated[list[FixedSize], Field(min_length=2, max_length=2)] | None = Field(
        description="Range of custom paper sizes: [[minWidth, minHeight], [maxWidth, maxHeight]]"
    )
    printrate: PrintRate | None = Field(description="Rated speed")
    supports_custom_paper_size: StrictBool


class Printer(Contract):
    id: Uuid
    computerId: Uuid = Field(description="The computer the printer is attached to")
    name: str
    osName: str = Field(description="Name reported by the operating system")
    description: str = Field(description="Driver description")
    displayName: str = Field(description="Settable by PATCH")
    remarks: str | None = Field(description="Settable by PATCH")
    enabled: StrictBool = Field(description="The live switch: a printer that is not enabled refuses jobs (422)")
    isDefault: StrictBool
    state: PrinterState = Field(
        description="`online`: its computer is online and the printer can print (IPP `idle` or `processing`);"
        " `offline`: it cannot print now (IPP `stopped`, paused, not answering, its computer offline or"
        " disabled). docs/api.md, 'Printer state'"
    )
    stateReasons: list[str] = Field(
        description="IPP printer-state-reasons keywords without their severity suffix, sorted, such as"
        " `media-empty`, `media-jam`, `door-open`, `toner-low`, `paused`, `offline`; empty when none"
    )
    stateDetail: str = Field(
        description="A sentence for people, built from the reasons and the printer's message; empty when the"
        " printer is healthy"
    )
    capabilities: Capabilities
    defaultOptions: PrintOptions = Field(description="Options applied when a job omits them; settable by PATCH")
    customPapers: list[CustomPaper] = Field(description="Settable by PATCH; names unique on the printer")
    createdAt: Timestamp
    updatedAt: Timestamp


class PrintJob(Contract):
    id: Uuid
    printerId: Uuid
    computerId: Uuid
    title: Title
    contentType: ContentType = Field(description="Copied from the original on a reprint")
    source: str = Field(description="Free text naming the submitting system")
    qty: Quantity
    options: PrintOptions = Field(description="The options as stored")
    expireAfter: ExpireAfter = Field(description="Seconds")
    expiresAt: Timestamp
    fileSha256: str = Field(description="Hex SHA-256 of the stored file; empty until a URL job's file is fetched")
    fileSize: NonNegativeInt = Field(description="Bytes")
    mode: Mode
    state: JobState
    stateMessage: str | None = Field(description="Why a job failed, or which options were dropped")
    createdAt: Timestamp
    sentAt: Timestamp | None
    receivedAt: Timestamp | None
    printingAt: Timestamp | None
    finishedAt: Timestamp | None


class JobStateChange(Contract):
    id: Uuid
    state: JobState
    message: str | None
    actor: Actor
    createdAt: Timestamp


class JobStateChangeList(Contract):
    data: list[JobStateChange] = Field(description="Every change, oldest first (no paging)")


class Organization(Contract):
    id: Uuid
    name: str


class SessionUser(Contract):
    id: Uuid
    email: str
    role: Role


class Whoami(Contract):
    apiKeyId: Uuid | None = Field(description="Null for a dashboard session")
    mode: Mode
    organization: Organization
    plan: str
    user: SessionUser | SkipJsonSchema[None] = Field(None, description="Only for a dashboard session")


class Enrollment(Contract):
    computerId: Uuid
    credential: str = Field(description="The agent's credential, shown once")
    agentGatewayUrl: str = Field(description="Where the agent connects")


class UsagePeriod(Contract):
    start: str = Field(description="First instant of the period (UTC)")
    end: str = Field(description="First instant of the next period (UTC)")


class LivePrints(Contract):
    used: JsonInt = Field(description="Live prints counted this period: one per live job created")
    quota: JsonInt = Field(description="Live prints the plan allows per calendar month")
    remaining: JsonInt = Field(description="quota - used, never below 0")


class TestJobs(Contract):
    today: JsonInt = Field(description="Test jobs created this UTC day")
    dailyCap: JsonInt = Field(description="Test jobs allowed per UTC day")
    remaining: JsonInt
    period: UsagePeriod


class Usage(Contract):
    """The organization's usage, the same for its live and test keys."""

    plan: str
    period: UsagePeriod = Field(description="The calendar month (UTC) live prints are counted in")
    livePrints: LivePrints
    testJobs: TestJobs
    upgradeUrl: str = Field(description="Where the plan is changed")


Item = TypeVar("Item")


class Page(Contract, Generic[Item]):
    data: list[Item]
    hasMore: StrictBool
    nextCursor: str | None = Field(description="Id of the last item; the `after` sent when the page is empty")


class ComputerPage(Page[Computer]):
    pass


class PrinterPage(Page[Printer]):
    pass


class PrintJobPage(Page[PrintJob]):
    pass
