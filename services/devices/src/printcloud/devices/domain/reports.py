"""What an agent reports about its computer and printers, and the checks a report must pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from printcloud.contracts.errors import invalid
from printcloud.devices.domain.states import PRINTER_STATES, PrinterCondition
from printcloud.protocol.printer_reasons import bounded_detail, normalised_reasons

MAX_PRINTER_NAME_LENGTH = 255


@dataclass(frozen=True)
class ReportedComputer:
    hostname: str
    os: str
    os_version: str
    arch: str
    agent_version: str


@dataclass(frozen=True)
class ReportedPrinter:
    """`name` is the printer's stable key on its computer; `state` is the spooler's view."""

    name: str
    os_name: str
    description: str
    is_default: bool
    state: str
    state_detail: str
    capabilities: dict[str, Any] = field(default_factory=dict)
    default_options: dict[str, Any] = field(default_factory=dict)
    state_reasons: Sequence[str] = ()

    def condition(self) -> PrinterCondition:
        """What the spooler says, in the bounds the service keeps (any agent may send it)."""
        return PrinterCondition(
            self.state, tuple(normalised_reasons(self.state_reasons)), bounded_detail(self.state_detail)
        )


def validate_printer_reports(reports: Sequence[ReportedPrinter]) -> None:
    """Rejects a report that would make printers ambiguous or carry a state we do not know."""
    seen: set[str] = set()
    for report in reports:
        if not report.name or len(report.name) > MAX_PRINTER_NAME_LENGTH:
            raise invalid(f"A printer name must have 1 to {MAX_PRINTER_NAME_LENGTH} characters.")
        if report.name in seen:
            raise invalid(f"Printer {report.name!r} is reported twice.")
        seen.add(report.name)
        if report.state not in PRINTER_STATES:
            raise invalid(f"Printer {report.name!r} has unknown state {report.state!r}; use `online` or `offline`.")
