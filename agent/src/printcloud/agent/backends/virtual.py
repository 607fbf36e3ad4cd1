"""The virtual backend: prints nothing, walks jobs through their states like a real spooler."""

from __future__ import annotations

import asyncio
import logging

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.print_ledger import PrintLedger
from printcloud.agent.options import decide_options, warning_message
from printcloud.protocol.constants import DONE, ERROR, PRINTING
from printcloud.protocol.messages import Job, PrinterReport
from printcloud.protocol.virtual_computer import PRINTER_OS, virtual_printers

log = logging.getLogger(__name__)

FAIL_MARKER = "[fail]"
FAIL_MESSAGE = "Virtual printer failure requested by [fail] in the title"


class VirtualBackend:
    def __init__(
        self, *, printing_after: float = 1.0, done_after: float = 1.0, print_ledger: PrintLedger | None = None
    ) -> None:
        """The two delays add up to the spec's "about 3 seconds" with the service's own steps."""
        self.printing_after = printing_after
        self.done_after = done_after
        self.print_ledger = print_ledger
        self._printers = {printer.name: printer for printer in virtual_printers()}

    async def discover(self) -> list[PrinterReport]:
        return list(self._printers.values())

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        printer = self._printers.get(job.printer_name)
        if printer is None:
            await report(ERROR, f"No virtual printer named {job.printer_name!r} on this computer")
            return
        decision = decide_options(job.options, printer.capabilities, PRINTER_OS[printer.name], raw=job.is_raw)
        await asyncio.sleep(self.printing_after)
        # The spooler has the job from here on: paper comes out even if this process dies now.
        if self.print_ledger is not None:
            self.print_ledger.record(job.job_id, printer.name)
        await report(PRINTING, None)
        await asyncio.sleep(self.done_after)
        if FAIL_MARKER in job.title:
            await report(ERROR, FAIL_MESSAGE)
            return
        log.info("virtual job printed", extra={"job_id": job.job_id, "printer": printer.name, "bytes": len(data)})
        await report(DONE, warning_message(decision.warnings))
