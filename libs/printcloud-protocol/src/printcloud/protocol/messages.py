"""The messages of protocol v1 as typed models, named on the wire as agent/PROTOCOL.md shows them.

Fields are snake_case in Python and camelCase on the wire. Fields a side does not know are ignored,
so that either side may add some within version 1. What a gateway refuses in an agent's message
(and with which reason) is decided here; `parsing` turns a refusal into the reason the agent reads.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from printcloud.protocol.constants import HELLO, JOB, JOB_CANCEL, JOB_STATE, JOB_STATE_RECORDED, PRINTERS, WELCOME
from printcloud.protocol.printer_reasons import bounded_detail, normalised_reasons

# The error type of a refusal whose message is the reason itself.
REFUSED = "protocol_refused"
_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")

# RECEIVED, PRINTING, DONE, ERROR (a test holds them equal).
ReportableState = Literal["received", "printing", "done", "error"]


def refused(reason: str) -> PydanticCustomError:
    return PydanticCustomError(REFUSED, reason)


@dataclass(frozen=True)
class MessageBounds:
    """What a gateway accepts from one agent beyond the protocol's shapes (its `AgentLimits`);
    passed as the validation context. Without it (the agent's side) nothing is counted."""

    max_printers: int
    max_capabilities_bytes: int


def _bounds(info: ValidationInfo) -> MessageBounds | None:
    return info.context if isinstance(info.context, MessageBounds) else None


class WireModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True, validate_by_alias=True, frozen=True)

    def to_wire(self) -> dict[str, Any]:
        """The JSON object sent; optional fields left unset are omitted."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class ComputerInfo(WireModel):
    hostname: str
    os: str  # linux, macos or windows: the per-OS option rules of the API spec apply by it
    os_version: str = ""
    arch: str = ""
    agent_version: str = ""


class PrinterReport(WireModel):
    """A printer as the operating system describes it. `name` is its stable key on the computer."""

    name: str
    os_name: str = ""
    description: str = ""
    is_default: bool = False
    state: str = "online"  # online or offline, as the spooler sees it
    # IPP printer-state-reasons keywords (`printer_reasons`); an agent before them sends none.
    state_reasons: list[str] = Field(default_factory=list)
    state_detail: str = ""
    capabilities: dict[str, Any] = Field(default_factory=dict)
    default_options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("state_reasons", mode="before")
    @classmethod
    def _keywords(cls, value: Any) -> list[str]:
        """Normalised rather than refused: a keyword this version does not know is still a reason."""
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise refused("stateReasons must be an array of strings")
        return normalised_reasons(value)

    @field_validator("state_detail")
    @classmethod
    def _bounded(cls, value: str) -> str:
        return bounded_detail(value)

    @field_validator("is_default", mode="before")
    @classmethod
    def _truthy(cls, value: Any) -> bool:
        return bool(value)

    @field_validator("capabilities", "default_options", mode="before")
    @classmethod
    def _absent_is_empty(cls, value: Any) -> Any:
        return value or {}

    @field_validator("capabilities")
    @classmethod
    def _within_size(cls, value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        bounds = _bounds(info)
        if bounds is not None and len(json.dumps(value)) > bounds.max_capabilities_bytes:
            raise refused(f"a printer's capabilities exceed {bounds.max_capabilities_bytes} bytes")
        return value


def _printer_list(value: Any, info: ValidationInfo) -> Any:
    if not isinstance(value, list) or not all(isinstance(item, dict | PrinterReport) for item in value):
        raise refused("printers must be an array of objects")
    bounds = _bounds(info)
    if bounds is not None and len(value) > bounds.max_printers:
        raise refused(f"a computer reports at most {bounds.max_printers} printers")
    return value


class Hello(WireModel):
    """agent → gateway, first message, exactly once."""

    type: Literal["hello"] = HELLO
    # PROTOCOL_VERSION, equal as JSON numbers compare (1.0 too): the one version this package speaks.
    protocol_version: Literal[1]
    computer: ComputerInfo = Field(default=None, validate_default=True)
    printers: list[PrinterReport] = Field(default_factory=list)

    @field_validator("computer", mode="before")
    @classmethod
    def _computer_object(cls, value: Any) -> Any:
        if not isinstance(value, dict | ComputerInfo):
            raise refused("computer must be an object")
        return value

    _printers = field_validator("printers", mode="before")(_printer_list)


class Printers(WireModel):
    """agent → gateway: the complete current list, whenever it changes."""

    type: Literal["printers"] = PRINTERS
    printers: list[PrinterReport] = Field(default=None, validate_default=True)

    _printers = field_validator("printers", mode="before")(_printer_list)


class JobState(WireModel):
    """agent → gateway: how far a job got; `message` is for a human."""

    type: Literal["job.state"] = JOB_STATE
    job_id: str
    state: ReportableState
    message: str | None = None
    # The job's trace, echoed from its `job` message; anything but text is ignored.
    traceparent: str | None = None

    @field_validator("traceparent", mode="before")
    @classmethod
    def _text_or_nothing(cls, value: Any) -> Any:
        return value if isinstance(value, str) else None


class JobStateRecorded(WireModel):
    """gateway → agent: the service has taken this `job.state` (recorded it, or found it a repeat or
    too late); the agent need not report it again. Sent only once the service answered."""

    type: Literal["job.state.recorded"] = JOB_STATE_RECORDED
    job_id: str
    state: ReportableState


class Welcome(WireModel):
    """gateway → agent, once the computer is online; nothing is sent before it."""

    type: Literal["welcome"] = WELCOME
    computer_id: str
    heartbeat_seconds: float
    # The release of the gateway (`1.0.0`), for the agent's log; gateways before 1.0.0 sent none.
    server_version: str | None = None

    @field_validator("server_version", mode="before")
    @classmethod
    def _text_or_nothing(cls, value: Any) -> Any:
        """Only ever logged, so anything but text is dropped rather than refused."""
        return value if isinstance(value, str) else None


class CustomPaper(WireModel):
    """A custom paper saved on the service, in tenths of a millimetre."""

    name: str
    width: int
    height: int


class Job(WireModel):
    """gateway → agent: a job to print; its file is in `content` when small, and can always be
    downloaded from `download_path`."""

    type: Literal["job"] = JOB
    job_id: str
    printer_id: str
    printer_name: str  # the `name` the agent reported
    title: str
    content_type: str  # pdf_uri, pdf_base64, raw_uri, raw_base64
    qty: int = 1
    options: dict[str, Any] = Field(default_factory=dict)
    file_sha256: str
    file_size: int
    download_path: str
    # Sent with a job whose `paper` option names one of the printer's custom papers.
    custom_paper: CustomPaper | None = None
    # The job's trace (W3C `traceparent`), echoed on the download and the state reports.
    traceparent: str | None = None
    # The whole file, base64, when it is small: the agent need not download it (agents that predate
    # the field ignore it and download, as pydantic drops unknown fields).
    content: str | None = None

    @property
    def is_raw(self) -> bool:
        return self.content_type.startswith("raw_")

    @field_validator("qty", mode="before")
    @classmethod
    def _absent_is_one(cls, value: Any) -> Any:
        return value or 1

    @field_validator("options", mode="before")
    @classmethod
    def _absent_is_empty(cls, value: Any) -> Any:
        return value or {}

    @field_validator("file_sha256")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()

    @field_validator("custom_paper", mode="before")
    @classmethod
    def _paper_or_nothing(cls, value: Any) -> Any:
        return value if isinstance(value, dict | CustomPaper) else None

    @field_validator("traceparent", mode="before")
    @classmethod
    def _w3c_or_nothing(cls, value: Any) -> Any:
        """Echoed only in the W3C form, so nothing else the gateway sent can reach a header."""
        return value if isinstance(value, str) and _TRACEPARENT.match(value) else None


class JobCancel(WireModel):
    """gateway → agent: stop the job wherever it is and report nothing more for it."""

    type: Literal["job.cancel"] = JOB_CANCEL
    job_id: str


def capabilities(
    *,
    papers: dict[str, list[int | None]],
    bins: list[str] | None = None,
    dpis: list[str] | None = None,
    medias: list[str] | None = None,
    duplex: bool = False,
    color: bool = False,
    collate: bool = False,
    copies: int = 1,
    nup: list[int] | None = None,
    extent: list[list[int]] | None = None,
    printrate: dict[str, Any] | None = None,
    supports_custom_paper_size: bool = False,
) -> dict[str, Any]:
    """The public `capabilities` object of the API spec with every field present, as `hello` carries it."""
    return {
        "papers": papers,
        "bins": bins or [],
        "dpis": dpis or [],
        "medias": medias or [],
        "duplex": duplex,
        "color": color,
        "collate": collate,
        "copies": copies,
        "nup": nup or [1],
        "extent": extent,
        "printrate": printrate,
        "supports_custom_paper_size": supports_custom_paper_size,
    }
