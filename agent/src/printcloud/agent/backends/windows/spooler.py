"""What the Windows backend needs from the Win32 print API, as plain Python values.

`win32.Pywin32Spooler` implements it with pywin32 on Windows; tests on Linux replace it with a
fake. Nothing else in the backend touches Win32, so everything above this line runs unchanged in
both places.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class PrinterInfo:
    """PRINTER_INFO_2, the fields the agent uses."""

    name: str
    port: str
    driver: str
    comment: str
    status: int  # PRINTER_STATUS_* bits
    attributes: int  # PRINTER_ATTRIBUTE_* bits
    is_default: bool


@dataclass(frozen=True)
class DeviceCaps:
    """DeviceCapabilities answers for one printer. Sizes and extents are tenths of a millimetre."""

    paper_ids: tuple[int, ...] = ()  # DC_PAPERS
    paper_names: tuple[str, ...] = ()  # DC_PAPERNAMES
    paper_sizes: tuple[tuple[int, int], ...] = ()  # DC_PAPERSIZE
    bin_ids: tuple[int, ...] = ()  # DC_BINS
    bin_names: tuple[str, ...] = ()  # DC_BINNAMES
    resolutions: tuple[tuple[int, int], ...] = ()  # DC_ENUMRESOLUTIONS
    media_type_names: tuple[str, ...] = ()  # DC_MEDIATYPENAMES
    duplex: bool = False  # DC_DUPLEX
    color: bool = False  # DC_COLORDEVICE
    collate: bool = False  # DC_COLLATE
    copies: int = 1  # DC_COPIES
    nup: tuple[int, ...] = ()  # DC_NUP
    min_extent: tuple[int, int] | None = None  # DC_MINEXTENT
    max_extent: tuple[int, int] | None = None  # DC_MAXEXTENT
    print_rate: int = 0  # DC_PRINTRATE
    print_rate_unit: int = 0  # DC_PRINTRATEUNIT


@dataclass(frozen=True)
class JobInfo:
    """JOB_INFO_1, the fields the agent uses."""

    status: int  # JOB_STATUS_* bits
    status_text: str


@dataclass(frozen=True)
class PdfSettings:
    """How to print a PDF: DEVMODE fields (None: the driver's default) and page handling."""

    copies: int = 1
    duplex: int | None = None  # DMDUP_*
    color: int | None = None  # DMCOLOR_*
    paper_size: int | None = None  # a DC_PAPERS id, or DMPAPER_USER with paper_dimensions
    paper_dimensions: tuple[int, int] | None = None  # tenths of a millimetre
    default_source: int | None = None  # a DC_BINS id
    pages: tuple[int, ...] | None = None  # zero-based page indexes; None prints all
    rotate: int = 0  # 0, 90 or 270 degrees clockwise
    fit_to_page: bool = False


class Spooler(Protocol):
    def printers(self) -> list[PrinterInfo]: ...

    def capabilities(self, printer: PrinterInfo) -> DeviceCaps: ...

    def print_raw(self, printer: str, document_name: str, data: bytes) -> int:
        """Spools `data` with the RAW data type; returns the spooler's job id."""
        ...

    def print_pdf(self, printer: str, document_name: str, data: bytes, settings: PdfSettings) -> int:
        """Renders the PDF's pages to the printer's DC under a DEVMODE; returns the job id."""
        ...

    def job(self, printer: str, job_id: int) -> JobInfo | None:
        """The job as the spooler has it, None once it has left the queue."""
        ...

    def cancel(self, printer: str, job_id: int) -> None: ...
