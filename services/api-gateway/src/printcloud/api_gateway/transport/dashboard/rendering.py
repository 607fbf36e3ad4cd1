"""The templates and the filters they format values with."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from printcloud.api_gateway.domain.audit import describe
from printcloud.api_gateway.transport.dashboard.confirmations import confirmation
from printcloud.core.timeutil import parse_iso

templates = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "templates"), autoescape=select_autoescape(), auto_reload=False
)


def when(value: object) -> str:
    """A timestamp the way people read it: `2030-01-01 12:00:05 UTC`."""
    if value is None or value == "":
        return "never"
    moment = value if isinstance(value, datetime) else parse_iso(str(value))
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else str(value)


def size(value: object) -> str:
    """Bytes the way people read them: `812 bytes`, `1.4 MB`."""
    count = value if isinstance(value, int) else 0
    if count < 1024:
        return f"{count} bytes"
    amount = count / 1024
    for unit in ("KB", "MB"):
        if amount < 1024:
            return f"{amount:.1f} {unit}"
        amount /= 1024
    return f"{amount:.1f} GB"


def tenths_mm(value: object) -> str:
    """A paper dimension in tenths of a millimetre, as millimetres (`2100` is `210 mm`)."""
    if not isinstance(value, int):
        return "any"
    return f"{value / 10:g} mm"


def state_reason(keyword: object) -> str:
    """An IPP printer-state-reasons keyword in words: `media-empty-error` is `media empty (error)`."""
    text = str(keyword)
    for severity in ("error", "warning", "report"):
        if text.endswith(f"-{severity}"):
            return f"{text.removesuffix(f'-{severity}').replace('-', ' ')} ({severity})"
    return text.replace("-", " ")


def detail_value(value: object) -> str:
    """A print option's or an audit entry's value: words for booleans, a list of names joined,
    anything nested as JSON."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(isinstance(item, str | int | float) for item in value):
        return ", ".join(str(item) for item in value) or "none"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)
    return "none" if value is None else str(value)


templates.filters["when"] = when
templates.filters["detail"] = detail_value
templates.filters["reason"] = state_reason
templates.filters["size"] = size
templates.filters["mm"] = tenths_mm
templates.filters["action"] = describe
templates.globals["confirmation"] = confirmation
