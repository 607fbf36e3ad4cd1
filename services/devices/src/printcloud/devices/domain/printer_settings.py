"""The printer settings users own and change with `PATCH /v1/printers/{id}`: checks, and the
`printer.updated` details of a change.

`customPapers` replaces the whole list: at most 50 papers `{name, width, height}`, sizes in
tenths of a millimetre, names unique on the printer (they become values of the `paper` option).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from printcloud.contracts.errors import invalid
from printcloud.contracts.field_names import public_name
from printcloud.contracts.option_checks import validate_options
from printcloud.contracts.options import MAX_CUSTOM_PAPERS, MAX_PAPER_NAME_LENGTH, MAX_PAPER_SIZE
from printcloud.contracts.requests import PrinterUpdate
from printcloud.contracts.text import is_blank

MAX_DISPLAY_NAME_LENGTH = 255
MAX_REMARKS_LENGTH = 2000

DISPLAY_NAME = public_name(PrinterUpdate, lambda update: update.displayName)
DEFAULT_OPTIONS = public_name(PrinterUpdate, lambda update: update.defaultOptions)
CUSTOM_PAPERS = public_name(PrinterUpdate, lambda update: update.customPapers)
REMARKS = public_name(PrinterUpdate, lambda update: update.remarks)

# Column -> public field name, in the order changes are listed.
SETTINGS_FIELDS = {
    "display_name": DISPLAY_NAME,
    "enabled": public_name(PrinterUpdate, lambda update: update.enabled),
    "default_options": DEFAULT_OPTIONS,
    "custom_papers": CUSTOM_PAPERS,
    "remarks": REMARKS,
}


@dataclass(frozen=True)
class PrinterSettings:
    """What a PATCH sends; None leaves a setting as it is (`clear_remarks` sets remarks to null)."""

    default_options: Any = None
    custom_papers: list[dict[str, Any]] | None = None
    display_name: str | None = None
    enabled: bool | None = None
    remarks: str | None = None
    clear_remarks: bool = False


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_PAPER_SIZE


def _checked_papers(papers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if len(papers) > MAX_CUSTOM_PAPERS:
        raise invalid(f"`{CUSTOM_PAPERS}` holds at most {MAX_CUSTOM_PAPERS} papers.")
    names: set[str] = set()
    for index, paper in enumerate(papers):
        field = f"{CUSTOM_PAPERS}.{index}"
        name = paper.get("name")
        if not isinstance(name, str) or is_blank(name) or len(name) > MAX_PAPER_NAME_LENGTH:
            raise invalid(f"`{field}.name` must have 1 to {MAX_PAPER_NAME_LENGTH} characters.")
        if name in names:
            raise invalid(f"`{field}.name` {name!r} is used twice; paper names must be unique.")
        names.add(name)
        for dimension in ("width", "height"):
            if not _is_size(paper.get(dimension)):
                raise invalid(f"`{field}.{dimension}` must be an integer from 1 to {MAX_PAPER_SIZE} (tenths of a mm).")
    return [{"name": p["name"], "width": p["width"], "height": p["height"]} for p in papers]


def checked_values(settings: PrinterSettings) -> dict[str, Any]:
    """The column values a PATCH sets, checked; raises `400 invalid_request` naming the field."""
    values: dict[str, Any] = {}
    if settings.display_name is not None:
        if is_blank(settings.display_name) or len(settings.display_name) > MAX_DISPLAY_NAME_LENGTH:
            raise invalid(f"`{DISPLAY_NAME}` must have 1 to {MAX_DISPLAY_NAME_LENGTH} characters.")
        values["display_name"] = settings.display_name
    if settings.enabled is not None:
        values["enabled"] = settings.enabled
    if settings.default_options is not None:
        values["default_options"] = validate_options(settings.default_options, DEFAULT_OPTIONS)
    if settings.custom_papers is not None:
        values["custom_papers"] = _checked_papers(settings.custom_papers)
    if settings.clear_remarks:
        values["remarks"] = None
    elif settings.remarks is not None:
        if len(settings.remarks) > MAX_REMARKS_LENGTH:
            raise invalid(f"`{REMARKS}` has at most {MAX_REMARKS_LENGTH} characters.")
        values["remarks"] = settings.remarks
    return values


def settings_changes(current: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """`{publicField: {from, to}}` for each value that really differs from `current`."""
    return {
        public: {"from": current[column], "to": values[column]}
        for column, public in SETTINGS_FIELDS.items()
        if column in values and values[column] != current[column]
    }
