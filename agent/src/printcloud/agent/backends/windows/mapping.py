"""Win32 printer information to the agent's reports, and print options to PDF settings: pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from printcloud.agent.backends.windows import constants as c
from printcloud.agent.backends.windows.spooler import DeviceCaps, PdfSettings, PrinterInfo
from printcloud.protocol.messages import CustomPaper, PrinterReport, capabilities
from printcloud.protocol.printer_reasons import normalised_reasons

_DUPLEX = {"one-sided": c.DMDUP_SIMPLEX, "long-edge": c.DMDUP_VERTICAL, "short-edge": c.DMDUP_HORIZONTAL}


def printer_capabilities(caps: DeviceCaps) -> dict[str, Any]:
    # DC_PAPERSIZE is already in tenths of a millimetre; a zero dimension is one the driver leaves
    # open (a roll). A driver answering fewer sizes than names loses the unmatched names.
    sizes = zip(caps.paper_names, caps.paper_sizes, strict=False)
    papers: dict[str, list[int | None]] = {name: [width or None, height or None] for name, (width, height) in sizes}
    extent = None
    if caps.min_extent and caps.max_extent and caps.max_extent[0] > 0 and caps.max_extent[1] > 0:
        extent = [list(caps.min_extent), list(caps.max_extent)]
    rate_unit = c.PRINT_RATE_UNITS.get(caps.print_rate_unit)
    return capabilities(
        papers=papers,
        bins=list(caps.bin_names),
        dpis=[f"{x}x{y}" for x, y in caps.resolutions],
        medias=list(caps.media_type_names),
        duplex=caps.duplex,
        color=caps.color,
        collate=caps.collate,
        copies=max(caps.copies, 1),
        nup=sorted(set(caps.nup)) or [1],
        extent=extent,
        printrate={"rate": caps.print_rate, "unit": rate_unit} if caps.print_rate > 0 and rate_unit else None,
        supports_custom_paper_size=extent is not None,
    )


@dataclass(frozen=True)
class _Status:
    """What one PRINTER_STATUS_* bit means: its IPP reason, its words, and whether it stops printing."""

    bit: int
    reason: str
    words: str
    offline: bool


# Bits the spooler sets while all is well (busy, printing, warming up, power save) say nothing.
_STATUSES = (
    _Status(c.PRINTER_STATUS_PAUSED, "paused", "paused", True),
    _Status(c.PRINTER_STATUS_ERROR, "other", "in an error state", True),
    _Status(c.PRINTER_STATUS_PENDING_DELETION, "deactivated", "being deleted", True),
    _Status(c.PRINTER_STATUS_PAPER_JAM, "media-jam", "paper jam", True),
    _Status(c.PRINTER_STATUS_PAPER_OUT, "media-empty", "out of paper", True),
    _Status(c.PRINTER_STATUS_MANUAL_FEED, "media-needed", "waiting for paper in the manual feed", False),
    _Status(c.PRINTER_STATUS_PAPER_PROBLEM, "other", "a paper problem", False),
    _Status(c.PRINTER_STATUS_OFFLINE, "offline", "offline", True),
    _Status(c.PRINTER_STATUS_OUTPUT_BIN_FULL, "output-area-full", "output bin full", False),
    _Status(c.PRINTER_STATUS_NOT_AVAILABLE, "offline", "not available", True),
    _Status(c.PRINTER_STATUS_TONER_LOW, "toner-low", "toner low", False),
    _Status(c.PRINTER_STATUS_NO_TONER, "toner-empty", "out of toner", False),
    _Status(c.PRINTER_STATUS_PAGE_PUNT, "other", "unable to print a page", False),
    _Status(c.PRINTER_STATUS_USER_INTERVENTION, "other", "needs user intervention", True),
    _Status(c.PRINTER_STATUS_OUT_OF_MEMORY, "other", "out of memory", False),
    _Status(c.PRINTER_STATUS_DOOR_OPEN, "door-open", "door open", True),
    _Status(c.PRINTER_STATUS_SERVER_UNKNOWN, "offline", "in an unknown state", True),
    _Status(c.PRINTER_STATUS_SERVER_OFFLINE, "offline", "on a print server that is offline", True),
    _Status(c.PRINTER_STATUS_DRIVER_UPDATE_NEEDED, "other", "waiting for a driver update", False),
)
_WORK_OFFLINE = _Status(c.PRINTER_ATTRIBUTE_WORK_OFFLINE, "offline", "set to use the printer offline", True)


@dataclass(frozen=True)
class PrinterCondition:
    state: str
    reasons: list[str]
    detail: str


def printer_condition(printer: PrinterInfo) -> PrinterCondition:
    """The spooler's status bits as `state`, IPP reasons and a sentence. A printer that is paused,
    offline or cannot print without someone's help is `offline`; warnings leave it `online`."""
    found = [status for status in _STATUSES if printer.status & status.bit]
    if printer.attributes & _WORK_OFFLINE.bit:
        found.append(_WORK_OFFLINE)
    if not found:
        return PrinterCondition("online", [], "")
    state = "offline" if any(status.offline for status in found) else "online"
    words = ", ".join(dict.fromkeys(status.words for status in found))
    reasons = normalised_reasons(status.reason for status in found)
    return PrinterCondition(state, reasons, f"Windows reports printer {printer.name} {words}")


def printer_report(printer: PrinterInfo, caps: DeviceCaps) -> PrinterReport:
    condition = printer_condition(printer)
    return PrinterReport(
        name=printer.name,
        os_name=printer.name,
        description=printer.driver,
        capabilities=printer_capabilities(caps),
        is_default=printer.is_default,
        state=condition.state,
        state_reasons=condition.reasons,
        state_detail=condition.detail,
    )


def page_indexes(pages: str) -> tuple[int, ...]:
    """`1-3,5` as zero-based indexes in the order given; ValueError when malformed."""
    indexes: list[int] = []
    for part in pages.replace(" ", "").split(","):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if first < 1 or last < first:
            raise ValueError(f"invalid page range {part!r}")
        indexes.extend(range(first - 1, last))
    return tuple(indexes)


def pdf_settings(
    honoured: dict[str, Any], caps: DeviceCaps, *, qty: int, custom_paper: CustomPaper | None
) -> tuple[PdfSettings, list[str]]:
    """The DEVMODE and page handling for options already decided by rule 6; extra warnings."""
    warnings: list[str] = []
    paper_size = paper_dimensions = source = None
    paper = honoured.get("paper")
    if paper in caps.paper_names:
        paper_size = caps.paper_ids[caps.paper_names.index(paper)]
    elif paper is not None and custom_paper is not None and custom_paper.name == paper:
        paper_size, paper_dimensions = c.DMPAPER_USER, (custom_paper.width, custom_paper.height)
    elif paper is not None:
        warnings.append(f"paper ignored: the size of custom paper {paper!r} was not sent to the agent")
    if honoured.get("bin") in caps.bin_names:
        source = caps.bin_ids[caps.bin_names.index(honoured["bin"])]
    pages = None
    if "pages" in honoured:
        try:
            pages = page_indexes(str(honoured["pages"]))
        except ValueError as exc:
            warnings.append(f"pages ignored: {exc}")
    color = honoured.get("color")
    settings = PdfSettings(
        copies=int(honoured.get("copies", 1)) * max(qty, 1),
        duplex=_DUPLEX.get(honoured.get("duplex", "")),
        color=None if color is None else (c.DMCOLOR_COLOR if color else c.DMCOLOR_MONOCHROME),
        paper_size=paper_size,
        paper_dimensions=paper_dimensions,
        default_source=source,
        pages=pages,
        rotate=int(honoured.get("rotate", 0)),
        fit_to_page=bool(honoured.get("fit_to_page", False)),
    )
    return settings, warnings


def job_outcome(status: int) -> tuple[bool, str | None, str | None]:
    """(started, outcome, message) for a job still in the queue: outcome is done, error or None."""
    if status & (c.JOB_STATUS_PRINTED | c.JOB_STATUS_COMPLETE):
        return True, "done", None
    if status & (c.JOB_STATUS_DELETING | c.JOB_STATUS_DELETED):
        return True, "error", "The job was deleted from the Windows print queue on the computer"
    return bool(status & c.JOB_STATUS_PRINTING), None, None
