"""CUPS queues to printer reports: pure functions over IPP attributes, no I/O."""

from __future__ import annotations

from typing import Any

from printcloud.agent.backends.cups.capabilities import Attributes, default_options, printer_capabilities
from printcloud.protocol.messages import PrinterReport

PRINTER_STOPPED = 5
# printer-state-reasons that mean the device cannot be reached, whatever the queue's state.
_UNREACHABLE_REASONS = ("offline-report", "offline", "connecting-to-device", "timed-out")

# Everything discovery and the job path read, asked for explicitly because `all` does not
# include media-col-database.
REQUESTED_ATTRIBUTES = (
    "printer-name",
    "printer-info",
    "printer-make-and-model",
    "printer-state",
    "printer-state-reasons",
    "printer-state-message",
    "printer-is-accepting-jobs",
    "device-uri",
    "copies-supported",
    "media-supported",
    "media-size-supported",
    "media-default",
    "media-source-supported",
    "media-type-supported",
    "printer-resolution-supported",
    "sides-supported",
    "sides-default",
    "print-color-mode-supported",
    "print-color-mode-default",
    "color-supported",
    "multiple-document-handling-supported",
    "number-up-supported",
    "pages-per-minute",
    "pages-per-minute-color",
)


def _first(attrs: Attributes, name: str, default: Any = None) -> Any:
    values = attrs.get(name)
    return values[0] if values else default


def is_driverless(attrs: Attributes) -> bool:
    """An IPP Everywhere queue whose device can be asked directly (not a dnssd:// name)."""
    uri = _first(attrs, "device-uri", "")
    return isinstance(uri, str) and uri.startswith(("ipp://", "ipps://"))


def queue_state(attrs: Attributes) -> tuple[str, str]:
    """(online or offline, why) as the agent reports it."""
    name = _first(attrs, "printer-name", "")
    message = _first(attrs, "printer-state-message", "") or ""
    reasons = [r for r in attrs.get("printer-state-reasons", []) if isinstance(r, str) and r != "none"]
    if _first(attrs, "printer-state") == PRINTER_STOPPED:
        return "offline", stopped_reason(name, message, reasons)
    if _first(attrs, "printer-is-accepting-jobs", True) is False:
        return "offline", f"CUPS queue {name} is rejecting jobs" + (f": {message}" if message else "")
    unreachable = [r for r in reasons if r.removesuffix("-error").removesuffix("-warning") in _UNREACHABLE_REASONS]
    if unreachable:
        return "offline", f"CUPS reports the printer unreachable ({', '.join(unreachable)})" + (
            f": {message}" if message else ""
        )
    return "online", ""


def stopped_reason(name: str, message: str, reasons: list[str]) -> str:
    why = message or ", ".join(r for r in reasons if r != "paused") or "stopped by an administrator"
    return f"CUPS queue {name} is stopped: {why}"


def printer_report(attrs: Attributes, *, default_queue: str | None) -> PrinterReport:
    name = str(_first(attrs, "printer-name", ""))
    caps = printer_capabilities(attrs)
    state, detail = queue_state(attrs)
    return PrinterReport(
        name=name,
        os_name=str(_first(attrs, "printer-info", "") or name),
        description=str(_first(attrs, "printer-make-and-model", "") or ""),
        capabilities=caps,
        default_options=default_options(attrs, caps),
        is_default=name == default_queue,
        state=state,
        state_detail=detail,
    )
