"""How the services check print options (spec, "Print options"): names, types and ranges,
independent of any printer, with the limits and patterns of `options`, which the document shows.

Shared by the jobs service (a job's `options`) and the devices service (a printer's
`defaultOptions`, "validated like job options").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from printcloud.contracts.errors import ApiError
from printcloud.contracts.options import MAX_COPIES, MAX_NUP, pages_problem
from printcloud.contracts.text import is_blank

# Returns why a value is unacceptable, or None when it is fine.
Check = Callable[[Any], str | None]


def _is_int(value: Any) -> bool:
    # bool is a subclass of int in Python, but `true` is not a number in JSON.
    return isinstance(value, int) and not isinstance(value, bool)


def _int_between(low: int, high: int) -> Check:
    def check(value: Any) -> str | None:
        return None if _is_int(value) and low <= value <= high else f"an integer from {low} to {high}"

    return check


def _int_one_of(*allowed: int) -> Check:
    def check(value: Any) -> str | None:
        return None if _is_int(value) and value in allowed else "one of " + ", ".join(str(a) for a in allowed)

    return check


def _text_one_of(*allowed: str) -> Check:
    def check(value: Any) -> str | None:
        return None if isinstance(value, str) and value in allowed else "one of " + ", ".join(allowed)

    return check


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else "a boolean"


def _name(value: Any) -> str | None:
    return None if isinstance(value, str) and not is_blank(value) else "a non-blank string"


def _pages(value: Any) -> str | None:
    # The pattern is the OpenAPI document's, so the two accept exactly the same text.
    if not isinstance(value, str):
        return 'page numbers and ranges separated by commas, such as "1-3,5"'
    return pages_problem(value)


OPTION_CHECKS: dict[str, Check] = {
    "copies": _int_between(1, MAX_COPIES),
    "paper": _name,
    "duplex": _text_one_of("long-edge", "short-edge", "one-sided"),
    "color": _boolean,
    "dpi": _name,
    "bin": _name,
    "media": _name,
    "collate": _boolean,
    "fit_to_page": _boolean,
    "rotate": _int_one_of(0, 90, 180, 270),
    "pages": _pages,
    "nup": _int_between(1, MAX_NUP),
}


def validate_options(options: Any, field: str = "options") -> dict[str, Any]:
    """The options object `field` of a request, checked; raises `400 invalid_request` naming the culprit."""
    if not isinstance(options, dict):
        raise ApiError("invalid_request", f"`{field}` must be an object.")
    for name, value in options.items():
        check = OPTION_CHECKS.get(name)
        if check is None:
            raise ApiError("invalid_request", f"Unknown print option `{name}` in `{field}`.")
        expected = check(value)
        if expected is not None:
            raise ApiError("invalid_request", f"Print option `{field}.{name}` must be {expected}.")
    return dict(options)
