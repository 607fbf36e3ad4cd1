"""CUPS queues to printer reports: pure functions over IPP attributes, no I/O."""

from __future__ import annotations

from printcloud.agent.backends.cups.capabilities import default_options, printer_capabilities
from printcloud.agent.backends.cups.ipp import Attributes, first_value
from printcloud.agent.backends.cups.printer_condition import DeviceStatus, printer_condition
from printcloud.protocol.messages import PrinterReport

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


def is_driverless(attrs: Attributes) -> bool:
    """An IPP Everywhere queue whose device can be asked directly (not a dnssd:// name)."""
    uri = first_value(attrs, "device-uri", "")
    return isinstance(uri, str) and uri.startswith(("ipp://", "ipps://"))


def printer_report(
    attrs: Attributes, *, default_queue: str | None, device: DeviceStatus | None = None
) -> PrinterReport:
    """`attrs` are the queue's (with its device's capabilities merged in, for a driverless queue);
    `device` is what the device said of its state, when it was asked."""
    name = str(first_value(attrs, "printer-name", ""))
    caps = printer_capabilities(attrs)
    condition = printer_condition(attrs, device)
    return PrinterReport(
        name=name,
        os_name=str(first_value(attrs, "printer-info", "") or name),
        description=str(first_value(attrs, "printer-make-and-model", "") or ""),
        capabilities=caps,
        default_options=default_options(attrs, caps),
        is_default=name == default_queue,
        state=condition.state,
        state_reasons=condition.reasons,
        state_detail=condition.detail,
    )
