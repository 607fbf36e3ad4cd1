"""The virtual backend: prints nothing, walks jobs through their states like a real spooler.

Test mode's printers are always `online` with no reasons, except on request: a job whose title
holds `[reason:KEYWORD]` (for example `[reason:media-empty]`) makes its printer report that IPP
reason while the job waits for it, `reason_seconds`, then clear it and print the job. So a client
can see, in test mode, what its users will meet: the printer's `stateReasons` and events, and the
waiting job's `stateMessage`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections import Counter

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.print_ledger import PrintLedger
from printcloud.agent.options import decide_options, warning_message
from printcloud.protocol.constants import DONE, ERROR, PRINTING
from printcloud.protocol.messages import Job, PrinterReport
from printcloud.protocol.printer_reasons import blocking, described, normalised_reasons
from printcloud.protocol.virtual_computer import PRINTER_OS, virtual_printers

log = logging.getLogger(__name__)

FAIL_MARKER = "[fail]"
FAIL_MESSAGE = "Virtual printer failure requested by [fail] in the title"
REASON_MARKER = re.compile(r"\[reason:([^\]\s]+)\]")
REASON_SECONDS = 10.0


class VirtualBackend:
    def __init__(
        self,
        *,
        printing_after: float = 1.0,
        done_after: float = 1.0,
        reason_seconds: float = REASON_SECONDS,
        print_ledger: PrintLedger | None = None,
    ) -> None:
        """The two delays add up to the spec's "about 3 seconds" with the service's own steps."""
        self.printing_after = printing_after
        self.done_after = done_after
        self.reason_seconds = reason_seconds
        self.print_ledger = print_ledger
        self._printers = {printer.name: printer for printer in virtual_printers()}
        # The reasons each printer reports now, counted by the jobs asking for them.
        self._reasons: dict[str, Counter[str]] = {name: Counter() for name in self._printers}
        self._changed = asyncio.Event()

    def printers_changed(self) -> asyncio.Event:
        return self._changed

    async def discover(self) -> list[PrinterReport]:
        return [self._reported(printer) for printer in self._printers.values()]

    def _reported(self, printer: PrinterReport) -> PrinterReport:
        reasons = sorted(self._reasons.get(printer.name, Counter()))
        if not reasons:
            return printer
        state = "offline" if blocking(reasons) else "online"
        detail = f"The printer reports {described(reasons)} (simulated by a test job)"
        return printer.model_copy(update={"state": state, "state_reasons": reasons, "state_detail": detail})

    async def _report_reasons(self, printer: str, title: str) -> None:
        """Holds the job while its printer reports the reasons its title asks for."""
        reasons = normalised_reasons(REASON_MARKER.findall(title))
        if not reasons:
            return
        self._reasons[printer].update(reasons)
        self._changed.set()
        try:
            await asyncio.sleep(self.reason_seconds)
        finally:
            self._reasons[printer].subtract(reasons)
            self._reasons[printer] = +self._reasons[printer]
            self._changed.set()

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        printer = self._printers.get(job.printer_name)
        if printer is None:
            await report(ERROR, f"No virtual printer named {job.printer_name!r} on this computer")
            return
        decision = decide_options(job.options, printer.capabilities, PRINTER_OS[printer.name], raw=job.is_raw)
        await self._report_reasons(printer.name, job.title)
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
