"""The test-mode virtual computer every organization gets, described in the shape of a report.

The printers are the protocol package's virtual computer, so what is stored here is exactly what
the fleet's virtual agent reports when it connects, and its first report changes nothing.
"""

from __future__ import annotations

from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.protocol.virtual_computer import PRINTER_OS, VIRTUAL_COMPUTER, virtual_printers

VIRTUAL_COMPUTER_NAME = "Virtual computer"
VIRTUAL_COMPUTER_MODE = "test"


def virtual_computer_report() -> ReportedComputer:
    return ReportedComputer(
        hostname=VIRTUAL_COMPUTER.hostname,
        os=VIRTUAL_COMPUTER.os,
        os_version=VIRTUAL_COMPUTER.os_version,
        arch=VIRTUAL_COMPUTER.arch,
        agent_version=VIRTUAL_COMPUTER.agent_version,
    )


def virtual_printer_reports() -> list[ReportedPrinter]:
    return [
        ReportedPrinter(
            name=p.name,
            os_name=p.os_name,
            description=p.description,
            is_default=p.is_default,
            state=p.state,
            state_detail=p.state_detail,
            state_reasons=p.state_reasons,
            capabilities=p.capabilities,
            default_options=p.default_options,
        )
        for p in virtual_printers()
    ]


def printer_os(computer_os: str, computer_is_virtual: bool, printer_name: str) -> str:
    """The OS family whose option rules apply to a printer: a virtual printer emulates its own."""
    if computer_is_virtual:
        return PRINTER_OS.get(printer_name, computer_os)
    return computer_os
