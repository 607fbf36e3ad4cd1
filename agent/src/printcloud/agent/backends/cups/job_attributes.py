"""Print options to IPP/CUPS job template attributes: pure functions, no I/O.

The options arrive already decided by `printcloud.agent.options` (rules 2-5: what the printer
cannot honour is dropped with a warning); this module only spells the rest the way CUPS takes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from printcloud.agent.backends.cups import ipp
from printcloud.protocol.messages import CustomPaper

PDF_FORMAT = "application/pdf"
RAW_FORMAT = "application/vnd.cups-raw"

_SIDES = {"one-sided": "one-sided", "long-edge": "two-sided-long-edge", "short-edge": "two-sided-short-edge"}
# orientation-requested enums (RFC 8011 5.2.10): portrait, landscape, reverse-landscape, reverse-portrait.
_ORIENTATION = {0: 3, 90: 4, 270: 5, 180: 6}


@dataclass
class JobTemplate:
    attributes: list[ipp.Attribute] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def page_ranges(text: str) -> list[ipp.Range]:
    """`1-3,5` as IPP ranges; ValueError when it is not ascending page numbers from 1."""
    ranges = []
    for part in text.replace(" ", "").split(","):
        low, _, high = part.partition("-")
        first, last = int(low), int(high or low)
        if first < 1 or last < first:
            raise ValueError(f"invalid page range {part!r}")
        ranges.append(ipp.Range(first, last))
    return ranges


def _media_size(width_tenths: int, height_tenths: int) -> ipp.Collection:
    return ipp.Collection(
        (
            ipp.Attribute.of("x-dimension", ipp.INTEGER, width_tenths * 10),
            ipp.Attribute.of("y-dimension", ipp.INTEGER, height_tenths * 10),
        )
    )


def _media(
    options: dict[str, Any], caps: dict[str, Any], custom_paper: CustomPaper | None, template: JobTemplate
) -> None:
    """`media` for a listed paper alone; `media-col` when a custom size, tray or media type is asked."""
    paper = options.get("paper")
    size: ipp.Collection | None = None
    keyword: str | None = None
    if paper is not None:
        listed = caps["papers"].get(paper)
        if listed is not None and None not in listed:
            keyword = paper
            size = _media_size(listed[0], listed[1])
        elif listed is not None:
            template.warnings.append(f"paper ignored: {paper!r} is a roll; printed at the document's length")
        elif custom_paper is not None and custom_paper.name == paper:
            size = _media_size(custom_paper.width, custom_paper.height)
        else:
            template.warnings.append(f"paper ignored: the size of custom paper {paper!r} was not sent to the agent")
    members = []
    if "bin" in options:
        members.append(ipp.Attribute.of("media-source", ipp.KEYWORD, options["bin"]))
    if "media" in options:
        members.append(ipp.Attribute.of("media-type", ipp.KEYWORD, options["media"]))
    if not members and keyword is not None:
        template.attributes.append(ipp.Attribute.of("media", ipp.KEYWORD, keyword))
        return
    if size is not None:
        members.insert(0, ipp.Attribute.of("media-size", ipp.BEGIN_COLLECTION, size))
    if members:
        template.attributes.append(ipp.Attribute.of("media-col", ipp.BEGIN_COLLECTION, ipp.Collection(tuple(members))))


def job_template(
    options: dict[str, Any], caps: dict[str, Any], *, qty: int, custom_paper: CustomPaper | None = None
) -> JobTemplate:
    """The job attributes for the honoured `options`; `qty` prints the whole job that many times."""
    template = JobTemplate()
    add = template.attributes.append
    copies = int(options.get("copies", 1)) * max(qty, 1)
    if copies > 1:
        add(ipp.Attribute.of("copies", ipp.INTEGER, copies))
    if "duplex" in options:
        add(ipp.Attribute.of("sides", ipp.KEYWORD, _SIDES[options["duplex"]]))
    if "color" in options:
        add(ipp.Attribute.of("print-color-mode", ipp.KEYWORD, "color" if options["color"] else "monochrome"))
    if "dpi" in options:
        x, _, y = str(options["dpi"]).partition("x")
        add(ipp.Attribute.of("printer-resolution", ipp.RESOLUTION, ipp.Resolution(int(x), int(y or x))))
    if "collate" in options:
        handling = (
            "separate-documents-collated-copies" if options["collate"] else "separate-documents-uncollated-copies"
        )
        add(ipp.Attribute.of("multiple-document-handling", ipp.KEYWORD, handling))
    if "fit_to_page" in options:
        add(ipp.Attribute.of("print-scaling", ipp.KEYWORD, "fit" if options["fit_to_page"] else "none"))
    if "rotate" in options:
        add(ipp.Attribute.of("orientation-requested", ipp.ENUM, _ORIENTATION[int(options["rotate"])]))
    if "nup" in options:
        add(ipp.Attribute.of("number-up", ipp.INTEGER, int(options["nup"])))
    if "pages" in options:
        try:
            add(ipp.Attribute.of("page-ranges", ipp.RANGE, *page_ranges(str(options["pages"]))))
        except ValueError as exc:
            template.warnings.append(f"pages ignored: {exc}")
    _media(options, caps, custom_paper, template)
    return template


def raw_template(*, qty: int) -> JobTemplate:
    """Rule 2: raw data carries its own settings; only the job's quantity applies."""
    return JobTemplate([ipp.Attribute.of("copies", ipp.INTEGER, qty)] if qty > 1 else [])
