"""The CUPS backend (Linux and macOS): discovers queues, prints through cupsd and follows each job
in CUPS to its end. The IPP mapping lives in pure modules beside this one; this is the glue.

A queue that is stopped or rejecting jobs fails the job at once with the reason, and a queue that
stops while the job waits in it has the job withdrawn and failed the same way: the spec has no
"waiting at the spooler" state and never retries an `error`, so a job left in a stopped queue would
sit in `received` out of the client's sight and could print hours after the client gave up and
reprinted it. What the device itself reports (out of paper, a jam) does not fail the job: CUPS
holds it until the printer can print, and the printer's `stateReasons`, reported on the next
discovery, tell the service (and the job's `stateMessage`) why it waits.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from dataclasses import dataclass

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.cups import ipp
from printcloud.agent.backends.cups.capabilities import merge_device_attributes
from printcloud.agent.backends.cups.connection import CupsConnection, CupsUnavailable, ask_device
from printcloud.agent.backends.cups.discovery import REQUESTED_ATTRIBUTES, is_driverless, printer_report
from printcloud.agent.backends.cups.job_attributes import PDF_FORMAT, RAW_FORMAT, job_template, raw_template
from printcloud.agent.backends.cups.job_tracking import JOB_ATTRIBUTES, progress
from printcloud.agent.backends.cups.printer_condition import STATE_ATTRIBUTES, DeviceStatus, printer_condition
from printcloud.agent.host import local_computer
from printcloud.agent.options import decide_options, warning_message
from printcloud.agent.printer_watch import bounded_poll
from printcloud.protocol.constants import DONE, ERROR, PRINTING
from printcloud.protocol.messages import Job, PrinterReport

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
# A network printer's own capabilities change rarely; asking for them on every discovery would be noise.
DEVICE_CACHE_SECONDS = 300.0
# A device's state is asked at most this often (by default; `device_status_seconds`), and again
# whenever cupsd's view of its queue changes (a job starts or ends): a network printer shared by
# many computers hears from each agent, and a spooler poll is cheaper than a network request.
DEVICE_STATUS_SECONDS = 30.0
DEVICE_POLLS_PER_STATUS = 3
UNREACHABLE_DETAIL = "The CUPS scheduler is not reachable"


def device_status_seconds(printer_poll_seconds: float) -> float:
    """How often devices are asked when the agent asks cupsd every `printer_poll_seconds`."""
    return DEVICE_POLLS_PER_STATUS * bounded_poll(printer_poll_seconds)


@dataclass
class _DeviceMemory:
    """What the backend last heard from one IPP Everywhere device, and when."""

    capabilities: ipp.Attributes | None = None
    capabilities_at: float = -math.inf
    status: DeviceStatus | None = None
    status_at: float = -math.inf
    queue_view: object = None


def _queue_view(queue: ipp.Attributes) -> object:
    """What changes in cupsd's attributes of a queue when its device's state may have changed."""
    return tuple(tuple(queue.get(name, ())) for name in STATE_ATTRIBUTES)


class CupsBackend:
    def __init__(
        self,
        connection: CupsConnection | None = None,
        *,
        poll_seconds: float = POLL_SECONDS,
        device_status_seconds: float = DEVICE_STATUS_SECONDS,
    ) -> None:
        self._cups = connection or CupsConnection()
        self._poll_seconds = poll_seconds
        self._device_status_seconds = device_status_seconds
        self._os_family = local_computer().os
        self._printers: dict[str, PrinterReport] = {}
        self._devices: dict[str, _DeviceMemory] = {}

    async def discover(self) -> list[PrinterReport]:
        try:
            queues = await self._queues()
            default = await self._default_queue()
        except CupsUnavailable as exc:
            # cupsd restarting must not look like every printer being removed.
            log.warning("CUPS unavailable during discovery", extra={"error": str(exc)})
            return [_offline(p, UNREACHABLE_DETAIL) for p in self._printers.values()]
        # Devices are asked together: one that does not answer delays discovery by its timeout once.
        devices = await asyncio.gather(*(self._device(attrs) for attrs in queues))
        reports = []
        for attrs, device in zip(queues, devices, strict=True):
            if device is not None and device.capabilities is not None:
                attrs = merge_device_attributes(attrs, device.capabilities)
            status = device.status if device is not None else None
            reports.append(printer_report(attrs, default_queue=default, device=status))
        self._printers = {report.name: report for report in reports}
        uris = {str(attrs["device-uri"][0]) for attrs in queues if is_driverless(attrs)}
        self._devices = {uri: memory for uri, memory in self._devices.items() if uri in uris}
        return reports

    async def _queues(self) -> list[ipp.Attributes]:
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

    async def _device(self, queue: ipp.Attributes) -> _DeviceMemory | None:
        """What the device of a driverless queue says, asked again when due; None for other queues."""
        if not is_driverless(queue):
            return None
        uri = str(queue["device-uri"][0])
        memory = self._devices.setdefault(uri, _DeviceMemory())
        now = time.monotonic()
        view = _queue_view(queue)
        capabilities_due = now - memory.capabilities_at >= DEVICE_CACHE_SECONDS
        if not (capabilities_due or now - memory.status_at >= self._device_status_seconds or view != memory.queue_view):
            return memory
        status = await ask_device(uri, REQUESTED_ATTRIBUTES if capabilities_due else STATE_ATTRIBUTES)
        memory.status, memory.status_at, memory.queue_view = status, now, view
        # A device that does not answer keeps the capabilities it last stated.
        if capabilities_due and status is not None and status.failure is None:
            memory.capabilities, memory.capabilities_at = status.attributes, now
        return memory

    async def _queue_attributes(self, queue: str) -> ipp.Attributes:
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
        condition = printer_condition(await self._queue_attributes(printer.name))
        if condition.state != "online":
            await report(ERROR, condition.detail)
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
        job_id = ipp.first_value(answer.first(ipp.JOB_GROUP), "job-id")
        if not answer.ok or not isinstance(job_id, int):
            raise CupsUnavailable(f"CUPS refused the job: {answer.status_message()}")
        return job_id

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
                condition = printer_condition(await self._queue_attributes(queue))
                if condition.state != "online":
                    await self._cancel(cups_job)
                    await report(ERROR, f"{condition.detail}; the job was withdrawn from CUPS")
                    return
            await asyncio.sleep(self._poll_seconds)

    async def _job_attributes(self, cups_job: int) -> ipp.Attributes:
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
    """The printer as last discovered, offline for a reason that is not its own (no reasons)."""
    return printer.model_copy(update={"state": "offline", "state_reasons": [], "state_detail": detail})
