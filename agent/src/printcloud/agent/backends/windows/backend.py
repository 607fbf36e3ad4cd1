"""The Windows backend: printers and capabilities from the spooler, raw jobs as RAW data, PDF jobs
rendered page by page under a DEVMODE (see agent/INSTALL.md), each job followed in the queue.

Every Win32 call goes through a `Spooler` (spooler.py) and runs in a worker thread, as Win32 calls
block. A printer that is paused or offline fails the job at once with the reason, and one paused
while the job waits has the job withdrawn, as the CUPS backend does for a stopped queue. The
spooler's status bits are reported as IPP reasons (mapping.py); warnings such as toner low leave
the printer online.
"""

from __future__ import annotations

import asyncio
import logging

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.windows.mapping import (
    PrinterCondition,
    job_outcome,
    pdf_settings,
    printer_condition,
    printer_report,
)
from printcloud.agent.backends.windows.spooler import DeviceCaps, PrinterInfo, Spooler
from printcloud.agent.options import WINDOWS, decide_options, warning_message
from printcloud.protocol.constants import DONE, ERROR, PRINTING
from printcloud.protocol.messages import Job, PrinterReport

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0


class WindowsBackend:
    def __init__(self, spooler: Spooler, *, poll_seconds: float = POLL_SECONDS) -> None:
        self._spooler = spooler
        self._poll_seconds = poll_seconds
        self._known: dict[str, tuple[PrinterInfo, DeviceCaps, PrinterReport]] = {}

    async def discover(self) -> list[PrinterReport]:
        printers = await asyncio.to_thread(self._spooler.printers)
        known = {}
        for printer in printers:
            caps = await asyncio.to_thread(self._spooler.capabilities, printer)
            known[printer.name] = (printer, caps, printer_report(printer, caps))
        self._known = known
        return [report for _, _, report in known.values()]

    async def _current(self, name: str) -> PrinterInfo | None:
        return next((p for p in await asyncio.to_thread(self._spooler.printers) if p.name == name), None)

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        known = self._known.get(job.printer_name)
        printer = await self._current(job.printer_name)
        if known is None or printer is None:
            await report(ERROR, f"No Windows printer named {job.printer_name!r} on this computer")
            return
        _, caps, reported = known
        condition = printer_condition(printer)
        if condition.state != "online":
            await report(ERROR, condition.detail)
            return
        warnings: list[str] = []
        if job.is_raw:
            job_id = await asyncio.to_thread(self._spooler.print_raw, printer.name, job.title, data)
        else:
            decision = decide_options(job.options, reported.capabilities, WINDOWS, raw=False)
            settings, extra = pdf_settings(decision.honoured, caps, qty=job.qty, custom_paper=job.custom_paper)
            warnings = decision.warnings + extra
            job_id = await asyncio.to_thread(self._spooler.print_pdf, printer.name, job.title, data, settings)
        log.info("job spooled", extra={"job_id": job.job_id, "printer": printer.name, "spooler_job": job_id})
        try:
            await self._follow(printer.name, job_id, report, warning_message(warnings))
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.to_thread(self._spooler.cancel, printer.name, job_id))
            raise

    async def _follow(self, printer_name: str, job_id: int, report: ReportState, warnings: str | None) -> None:
        started = False
        while True:
            info = await asyncio.to_thread(self._spooler.job, printer_name, job_id)
            if info is None:
                # The spooler drops a job once it has been sent to the printer.
                if not started:
                    await report(PRINTING, None)
                await report(DONE, warnings)
                return
            now_started, outcome, message = job_outcome(info.status)
            if now_started and not started:
                started = True
                await report(PRINTING, None)
            if outcome == DONE:
                await report(DONE, warnings)
                return
            if outcome == ERROR:
                await report(ERROR, message)
                return
            if not started:
                printer = await self._current(printer_name)
                condition = (
                    printer_condition(printer)
                    if printer is not None
                    else PrinterCondition("offline", [], f"printer {printer_name} was removed")
                )
                if condition.state != "online":
                    await asyncio.to_thread(self._spooler.cancel, printer_name, job_id)
                    await report(ERROR, f"{condition.detail}; the job was withdrawn from the print queue")
                    return
            await asyncio.sleep(self._poll_seconds)
