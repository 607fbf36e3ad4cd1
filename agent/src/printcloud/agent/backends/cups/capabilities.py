"""CUPS/IPP printer attributes to the public `capabilities` object: pure functions, no I/O.

IPP sizes are hundredths of a millimetre; the API wants tenths. Paper names are the PWG media
keywords CUPS lists in `media-supported` (rule 7: names come from the spooler), so a `paper`
option goes back to CUPS unchanged as the `media` job attribute.
"""

from __future__ import annotations

import re
from typing import Any

from printcloud.agent.backends.cups.ipp import RESOLUTION_DPCM, Range, Resolution
from printcloud.protocol.messages import capabilities

Attributes = dict[str, list[Any]]

# The number-up values CUPS's filters lay out; a printer advertising a range offers these within it.
STANDARD_NUP = (1, 2, 4, 6, 9, 16)
_CUSTOM_LIMIT = re.compile(r"^custom_(min|max)_")
# PWG 5101.1 self-describing names end in `_<width>x<height><unit>`.
_PWG_SIZE = re.compile(r"_(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)(mm|in)$")
_TENTHS_PER_UNIT = {"mm": 10.0, "in": 254.0}

# Attributes an IPP Everywhere device states better than its CUPS queue (the generated PPD
# invents a copy limit and a speed). n-up, scaling and page ranges stay CUPS's: its filters do them.
DEVICE_AUTHORITATIVE = (
    "copies-supported",
    "pages-per-minute",
    "pages-per-minute-color",
    "media-supported",
    "media-size-supported",
    "media-source-supported",
    "media-type-supported",
    "printer-resolution-supported",
    "sides-supported",
    "print-color-mode-supported",
    "color-supported",
    "multiple-document-handling-supported",
)


def merge_device_attributes(queue: Attributes, device: Attributes) -> Attributes:
    """A driverless queue's attributes with what its device itself advertises taking precedence."""
    merged = dict(queue)
    for name in DEVICE_AUTHORITATIVE:
        if name in device:
            merged[name] = device[name]
    return merged


def pwg_size(keyword: str) -> list[int | None]:
    """[width, height] in tenths of a millimetre from a PWG media keyword; null when unstated."""
    match = _PWG_SIZE.search(keyword)
    if match is None:
        return [None, None]
    factor = _TENTHS_PER_UNIT[match.group(3)]
    return [round(float(match.group(1)) * factor), round(float(match.group(2)) * factor)]


def _tenths(value: Any) -> int | None:
    return round(value / 10) if isinstance(value, int) else None


def _size_entries(attrs: Attributes) -> list[tuple[Any, Any]]:
    entries = []
    for size in attrs.get("media-size-supported", []):
        if isinstance(size, dict):
            entries.append((size.get("x-dimension", [None])[0], size.get("y-dimension", [None])[0]))
    return entries


def papers(attrs: Attributes) -> dict[str, list[int | None]]:
    found: dict[str, list[int | None]] = {}
    for keyword in attrs.get("media-supported", []):
        if isinstance(keyword, str) and not _CUSTOM_LIMIT.match(keyword):
            found[keyword] = pwg_size(keyword)
    # A roll has a fixed width and a length range; its length is unbounded for the API.
    for x, y in _size_entries(attrs):
        if isinstance(x, int) and isinstance(y, Range):
            found.setdefault(f"roll_{x / 100:g}mm", [_tenths(x), None])
    return found


def extent(attrs: Attributes) -> list[list[int]] | None:
    """[[min w, min h], [max w, max h]] of custom sizes, from ranges or custom_min/max keywords."""
    for x, y in _size_entries(attrs):
        if isinstance(x, Range) and isinstance(y, Range):
            return [[round(x.lower / 10), round(y.lower / 10)], [round(x.upper / 10), round(y.upper / 10)]]
    limits = {}
    for keyword in attrs.get("media-supported", []):
        match = _CUSTOM_LIMIT.match(keyword) if isinstance(keyword, str) else None
        if match:
            limits[match.group(1)] = pwg_size(keyword)
    low, high = limits.get("min", [None, None]), limits.get("max", [None, None])
    if None in (*low, *high):
        return None
    return [[int(v) for v in low if v is not None], [int(v) for v in high if v is not None]]


def resolution_name(resolution: Resolution) -> str:
    if resolution.units == RESOLUTION_DPCM:
        return f"{round(resolution.x * 2.54)}x{round(resolution.y * 2.54)}"
    return f"{resolution.x}x{resolution.y}"


def _keywords(attrs: Attributes, name: str) -> list[str]:
    return [value for value in attrs.get(name, []) if isinstance(value, str)]


def nup(attrs: Attributes) -> list[int]:
    offered: set[int] = set()
    for value in attrs.get("number-up-supported", []):
        if isinstance(value, int):
            offered.add(value)
        elif isinstance(value, Range):
            offered.update(n for n in STANDARD_NUP if value.lower <= n <= value.upper)
    return sorted(n for n in offered if 1 <= n <= 16) or [1]


def max_copies(attrs: Attributes) -> int:
    supported = attrs.get("copies-supported", [])
    if supported and isinstance(supported[0], Range):
        return supported[0].upper
    return 1


def printrate(attrs: Attributes) -> dict[str, Any] | None:
    rate = (attrs.get("pages-per-minute") or [0])[0]
    return {"rate": rate, "unit": "ppm"} if isinstance(rate, int) and rate > 0 else None


def printer_capabilities(attrs: Attributes) -> dict[str, Any]:
    modes = _keywords(attrs, "print-color-mode-supported")
    color_supported = attrs.get("color-supported", [False])[0] is True
    custom = extent(attrs)
    return capabilities(
        papers=papers(attrs),
        bins=_keywords(attrs, "media-source-supported"),
        dpis=[resolution_name(r) for r in attrs.get("printer-resolution-supported", []) if isinstance(r, Resolution)],
        medias=_keywords(attrs, "media-type-supported"),
        duplex=any(side.startswith("two-sided") for side in _keywords(attrs, "sides-supported")),
        color=color_supported or "color" in modes,
        collate="separate-documents-collated-copies" in _keywords(attrs, "multiple-document-handling-supported"),
        copies=max_copies(attrs),
        nup=nup(attrs),
        extent=custom,
        printrate=printrate(attrs),
        supports_custom_paper_size=custom is not None,
    )


_SIDES_TO_DUPLEX = {
    "one-sided": "one-sided",
    "two-sided-long-edge": "long-edge",
    "two-sided-short-edge": "short-edge",
}


def default_options(attrs: Attributes, caps: dict[str, Any]) -> dict[str, Any]:
    """The queue's defaults, in print option terms, limited to values the printer offers."""
    defaults: dict[str, Any] = {}
    media = (attrs.get("media-default") or [None])[0]
    if media in caps["papers"]:
        defaults["paper"] = media
    sides = (attrs.get("sides-default") or [None])[0]
    if sides in _SIDES_TO_DUPLEX:
        defaults["duplex"] = _SIDES_TO_DUPLEX[sides]
    mode = (attrs.get("print-color-mode-default") or [None])[0]
    if isinstance(mode, str) and caps["color"]:
        defaults["color"] = mode != "monochrome"
    return defaults
