"""The CUPS backend (Linux and macOS): discovers queues, prints through cupsd and follows each job
in CUPS to its end. The IPP mapping lives in pure modules beside this one; this is the glue.

A queue that is stopped or rejecting jobs fails the job at once with the reason, and a queue that
stops while the job waits in it has the job withdrawn and failed the same way: the spec has no
"waiting at the spooler" state and never retries an `error`, so a job left in a stopped queue would
sit in `received` out of the client's sight and could print hours after the client gave up and
reprinted it.
"""

from __future__ import annotations

import asyncio
import logging
import time

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.cups import ipp
from printcloud.agent.backends.cups.capabilities import Attributes, merge_device_attributes
from printcloud.agent.backends.cups.connection import CupsConnection, CupsUnavailable, device_attributes
from printcloud.agent.backends.cups.discovery import (
    REQUESTED_ATTRIBUTES,
    is_driverless,
    printer_report,
    queue_state,
)
from printcloud.agent.backends.cups.job_attributes import PDF_FORMAT, RAW_FORMAT, job_template, raw_template
from printcloud.agent.backends.cups.job_tracking import JOB_ATTRIBUTES, progress
from printcloud.agent.host import local_computer
from printcloud.agent.options import decide_options, warning_message
from printcloud.protocol.constants import DONE, ERROR, PRINTING
from printcloud.protocol.messages import Job, PrinterReport

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# A network printer's own attributes change rarely; asking it on every discovery would be noise.
DEVICE_CACHE_SECONDS = 300.0
UNREACHABLE_DETAIL = "The CUPS scheduler is not reachable"


class CupsBackend:
    def __init__(self, connection: CupsConnection | None = None, *, poll_seconds: float = POLL_SECONDS) -> None:
        self._cups = connection or CupsConnection()
        self._poll_seconds = poll_seconds
        self._os_family = local_computer().os
        self._printers: dict[str, PrinterReport] = {}
        self._devices: dict[str, tuple[float, Attributes | None]] = {}

    async def discover(self) -> list[PrinterReport]:
        try:
            queues = await self._queues()
            default = await self._default_queue()
        except CupsUnavailable as exc:
            # cupsd restarting must not look like every printer being removed.
            log.warning("CUPS unavailable during discovery", extra={"error": str(exc)})
            return [_offline(p, UNREACHABLE_DETAIL) for p in self._printers.values()]
        reports = []
        for attrs in queues:
            if is_driverless(attrs):
                attrs = merge_device_attributes(attrs, await self._device(str(attrs["device-uri"][0])) or {})
            reports.append(printer_report(attrs, default_queue=default))
        self._printers = {report.name: report for report in reports}
        return reports

    async def _queues(self) -> list[Attributes]:
        answer = await self._cups.request(
            ipp.CUPS_GET_PRINTERS,
            [
                ipp.Attribute.of("requested-attributes", ipp.KEYWORD, *REQUESTED_ATTRIBUTES),
                ipp.Attribute.of("requesting-user-name", ipp.NAME, self._cups.user),
            ],
        )
        if answer.status == ipp.STATUS_NOT_FOUND:  # no queue at all
            return []
        if not answer.ok:
            raise CupsUnavailable(f"CUPS-Get-Printers failed: {answer.status_message()}")
        return answer.all(ipp.PRINTER_GROUP)

    async def _default_queue(self) -> str | None:
        answer = await self._cups.request(
            ipp.CUPS_GET_DEFAULT, [ipp.Attribute.of("requested-attributes", ipp.KEYWORD, "printer-name")]
        )
        names = answer.first(ipp.PRINTER_GROUP).get("printer-name") if answer.ok else None
        return str(names[0]) if names else None

    async def _device(self, uri: str) -> Attributes | None:
        now = time.monotonic()
        cached = self._devices.get(uri)
        if cached is None or now - cached[0] > DEVICE_CACHE_SECONDS:
            cached = (now, await device_attributes(uri, REQUESTED_ATTRIBUTES))
            self._devices[uri] = cached
        return cached[1]

    async def _queue_attributes(self, queue: str) -> Attributes:
        answer = await self._cups.request(
            ipp.GET_PRINTER_ATTRIBUTES,
            [
                ipp.Attribute.of("printer-uri", ipp.URI, self._cups.printer_uri(queue)),
                ipp.Attribute.of("requested-attributes", ipp.KEYWORD, *REQUESTED_ATTRIBUTES),
            ],
            path=f"/printers/{queue}",
        )
        if not answer.ok:
            raise CupsUnavailable(f"no CUPS queue {queue!r}: {answer.status_message()}")
        return answer.first(ipp.PRINTER_GROUP)

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        printer = self._printers.get(job.printer_name)
        if printer is None:
            await report(ERROR, f"No CUPS queue named {job.printer_name!r} on this computer")
            return
        state, why = queue_state(await self._queue_attributes(printer.name))
        if state != "online":
            await report(ERROR, why)
            return
        if job.is_raw:
            template, warnings, document_format = raw_template(qty=job.qty), [], RAW_FORMAT
        else:
            decision = decide_options(job.options, printer.capabilities, self._os_family, raw=False)
            template = job_template(decision.honoured, printer.capabilities, qty=job.qty, custom_paper=job.custom_paper)
            warnings, document_format = decision.warnings + template.warnings, PDF_FORMAT
        cups_job = await self._print(printer.name, job, document_format, template.attributes, data)
        log.info("job handed to CUPS", extra={"job_id": job.job_id, "queue": printer.name, "cups_job": cups_job})
        try:
            await self._follow(printer.name, cups_job, report, warning_message(warnings))
        except asyncio.CancelledError:
            # The service cancelled the job: withdraw it from CUPS before giving up the task.
            await asyncio.shield(self._cancel(cups_job))
            raise

    async def _print(
        self, queue: str, job: Job, document_format: str, attributes: list[ipp.Attribute], data: bytes
    ) -> int:
        answer = await self._cups.request(
            ipp.PRINT_JOB,
            [
                ipp.Attribute.of("printer-uri", ipp.URI, self._cups.printer_uri(queue)),
                ipp.Attribute.of("requesting-user-name", ipp.NAME, self._cups.user),
                ipp.Attribute.of("job-name", ipp.NAME, job.title[:255]),
                ipp.Attribute.of("document-format", ipp.MIME_TYPE, document_format),
            ],
            path=f"/printers/{queue}",
            job_attributes=attributes,
            document=data,
        )
        job_ids = answer.first(ipp.JOB_GROUP).get("job-id")
        if not answer.ok or not job_ids:
            raise CupsUnavailable(f"CUPS refused the job: {answer.status_message()}")
        return int(job_ids[0])

    async def _follow(self, queue: str, cups_job: int, report: ReportState, warnings: str | None) -> None:
        started = False
        while True:
            try:
                attrs = await self._job_attributes(cups_job)
            except CupsUnavailable as exc:
                # cupsd restarts keep their jobs; the service's spooler timeout bounds the wait.
                log.warning("cannot read CUPS job; retrying", extra={"cups_job": cups_job, "error": str(exc)})
                await asyncio.sleep(self._poll_seconds)
                continue
            step = progress(attrs, cups_job)
            if step.started and not started:
                started = True
                await report(PRINTING, None)
            if step.outcome == DONE:
                await report(DONE, warnings)
                return
            if step.outcome == ERROR:
                await report(ERROR, step.message)
                return
            if not step.started:
                state, why = queue_state(await self._queue_attributes(queue))
                if state != "online":
                    await self._cancel(cups_job)
                    await report(ERROR, f"{why}; the job was withdrawn from CUPS")
                    return
            await asyncio.sleep(self._poll_seconds)

    async def _job_attributes(self, cups_job: int) -> Attributes:
        answer = await self._cups.request(
            ipp.GET_JOB_ATTRIBUTES,
            [
                ipp.Attribute.of("job-uri", ipp.URI, self._cups.job_uri(cups_job)),
                ipp.Attribute.of("requesting-user-name", ipp.NAME, self._cups.user),
                ipp.Attribute.of("requested-attributes", ipp.KEYWORD, *JOB_ATTRIBUTES),
            ],
            path="/jobs/",
        )
        if not answer.ok:
            raise CupsUnavailable(f"Get-Job-Attributes failed: {answer.status_message()}")
        return answer.first(ipp.JOB_GROUP)

    async def _cancel(self, cups_job: int) -> None:
        try:
            answer = await self._cups.request(
                ipp.CANCEL_JOB,
                [
                    ipp.Attribute.of("job-uri", ipp.URI, self._cups.job_uri(cups_job)),
                    ipp.Attribute.of("requesting-user-name", ipp.NAME, self._cups.user),
                ],
                path="/jobs/",
            )
        except CupsUnavailable as exc:
            log.warning("could not cancel CUPS job", extra={"cups_job": cups_job, "error": str(exc)})
            return
        if not answer.ok:
            log.warning("CUPS refused to cancel", extra={"cups_job": cups_job, "status": answer.status_message()})


def _offline(printer: PrinterReport, detail: str) -> PrinterReport:
    return PrinterReport(
        name=printer.name,
        os_name=printer.os_name,
        description=printer.description,
        capabilities=printer.capabilities,
        default_options=printer.default_options,
        is_default=printer.is_default,
        state="offline",
        state_detail=detail,
    )
