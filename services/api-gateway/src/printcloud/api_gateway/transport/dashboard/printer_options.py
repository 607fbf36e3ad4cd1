"""A printer's default options and custom papers as form fields: the choices its capabilities
offer, and the JSON the API takes back. The rules themselves stay the API's (contracts.option_checks):
a field left at "not set" is simply not sent."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData

from printcloud.api_gateway.transport.dashboard.form_state import FieldRefused
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Printer

# Option name to label, in the order the form shows them (the spec's "Print options").
OPTION_FIELDS: dict[str, str] = {
    "paper": "Paper",
    "duplex": "Two-sided",
    "color": "Colour",
    "dpi": "Resolution",
    "bin": "Tray",
    "media": "Media",
    "copies": "Copies",
    "collate": "Collate copies",
    "fit_to_page": "Fit to page",
    "rotate": "Rotation",
    "nup": "Pages per sheet",
    "pages": "Pages",
}
_CUSTOM_PAPERS = public_name(Printer, lambda printer: printer.customPapers)
_BOOLEAN = [("true", "yes"), ("false", "no")]
_WHOLE_NUMBERS = ("copies", "nup", "rotate")
_BOOLEANS = ("color", "collate", "fit_to_page")


def option_choices(printer: dict[str, Any]) -> dict[str, list[tuple[str, str]] | None]:
    """Per option, the (value, label) pairs a select offers, or None for a typed field."""
    caps = printer.get("capabilities") or {}
    custom = printer.get(_CUSTOM_PAPERS) or []
    papers = [*(caps.get("papers") or {}), *(paper["name"] for paper in custom)]
    duplex = ["one-sided", "long-edge", "short-edge"] if caps.get("duplex") else ["one-sided"]
    return {
        "paper": [(name, name) for name in papers],
        "duplex": [(value, value) for value in duplex],
        "color": [("true", "colour"), ("false", "grayscale")],
        "dpi": [(value, value) for value in caps.get("dpis") or []],
        "bin": [(value, value) for value in caps.get("bins") or []],
        "media": [(value, value) for value in caps.get("medias") or []],
        "copies": None,
        "collate": _BOOLEAN,
        "fit_to_page": _BOOLEAN,
        "rotate": [(str(degrees), f"{degrees}°") for degrees in (0, 90, 180, 270)],
        "nup": [(str(count), str(count)) for count in caps.get("nup") or []],
        "pages": None,
    }


def shown_value(options: dict[str, Any], name: str) -> str:
    """A stored option as its form field holds it."""
    value = options.get(name)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def default_options_from(form: FormData) -> dict[str, Any]:
    """The options set in the form, typed as the API takes them."""
    options: dict[str, Any] = {}
    for name, label in OPTION_FIELDS.items():
        value = form.get(f"option_{name}")
        if not isinstance(value, str) or not value.strip():
            continue
        value = value.strip()
        if name in _BOOLEANS:
            options[name] = value == "true"
        elif name in _WHOLE_NUMBERS:
            if not value.isdigit():
                raise FieldRefused(f"option_{name}", f"{label} must be a whole number.")
            options[name] = int(value)
        else:
            options[name] = value
    return options


def paper_from(form: FormData) -> dict[str, Any]:
    """A custom paper from its name and size in millimetres (the API counts tenths of a millimetre)."""
    name = form.get("paper_name")
    if not isinstance(name, str) or not name.strip():
        raise FieldRefused("paper_name", "Give the paper a name.")
    sizes = []
    for dimension in ("width", "height"):
        text = form.get(f"paper_{dimension}")
        try:
            millimetres = float(text) if isinstance(text, str) else 0.0
        except ValueError:
            millimetres = 0.0
        if not 0.1 <= millimetres <= 10_000:
            raise FieldRefused(f"paper_{dimension}", f"The paper's {dimension} must be from 0.1 to 10000 mm.")
        sizes.append(round(millimetres * 10))
    return {"name": name.strip(), "width": sizes[0], "height": sizes[1]}
