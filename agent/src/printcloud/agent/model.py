"""What an agent reports about its computer and printers, in the wire shape of protocol v1."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ComputerInfo:
    hostname: str
    os: str
    os_version: str
    arch: str
    agent_version: str

    def to_wire(self) -> dict[str, Any]:
        return {
            "hostname": self.hostname,
            "os": self.os,
            "osVersion": self.os_version,
            "arch": self.arch,
            "agentVersion": self.agent_version,
        }


@dataclass(frozen=True)
class PrinterReport:
    """A printer as the operating system describes it. `name` is its stable key on the computer."""

    name: str
    os_name: str
    description: str
    capabilities: dict[str, Any]
    default_options: dict[str, Any] = field(default_factory=dict)
    is_default: bool = False
    state: str = "online"  # online or offline, as the spooler sees it
    state_detail: str = ""

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "osName": self.os_name,
            "description": self.description,
            "isDefault": self.is_default,
            "state": self.state,
            "stateDetail": self.state_detail,
            "capabilities": self.capabilities,
            "defaultOptions": self.default_options,
        }


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
    """The public `capabilities` object with every field present."""
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


@dataclass(frozen=True)
class CustomPaper:
    """A custom paper saved on the service, in tenths of a millimetre."""

    name: str
    width: int
    height: int


@dataclass(frozen=True)
class AgentJob:
    """A job as the gateway delivers it in a `job` message."""

    job_id: str
    printer_id: str
    printer_name: str
    title: str
    content_type: str
    qty: int
    options: dict[str, Any]
    file_sha256: str
    file_size: int
    download_path: str
    # Sent with a job whose `paper` option names one of the printer's custom papers.
    custom_paper: CustomPaper | None = None
    # The job's trace (W3C `traceparent`), echoed on the download and the state reports; "" if none.
    traceparent: str = ""

    @property
    def is_raw(self) -> bool:
        return self.content_type.startswith("raw_")

    @classmethod
    def from_wire(cls, message: dict[str, Any]) -> AgentJob:
        """Raises KeyError, TypeError or ValueError on a malformed message."""
        options = message.get("options") or {}
        if not isinstance(options, dict):
            raise TypeError("options must be an object")
        paper = message.get("customPaper")
        custom_paper = None
        if isinstance(paper, dict):
            custom_paper = CustomPaper(str(paper["name"]), int(paper["width"]), int(paper["height"]))
        return cls(
            job_id=str(message["jobId"]),
            printer_id=str(message["printerId"]),
            printer_name=str(message["printerName"]),
            title=str(message["title"]),
            content_type=str(message["contentType"]),
            qty=int(message.get("qty") or 1),
            options=options,
            file_sha256=str(message["fileSha256"]).lower(),
            file_size=int(message["fileSize"]),
            download_path=str(message["downloadPath"]),
            custom_paper=custom_paper,
            traceparent=_traceparent(message.get("traceparent")),
        )


_TRACEPARENT = re.compile(r"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def _traceparent(value: Any) -> str:
    """Echoed only in the W3C form, so nothing else the gateway sent can reach a header."""
    return value if isinstance(value, str) and _TRACEPARENT.match(value) else ""
