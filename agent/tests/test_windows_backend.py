"""The Windows backend over a fake Win32 layer: everything but `win32.Pywin32Spooler` is the code
that runs on Windows."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from printcloud.agent.backends.windows import constants as c
from printcloud.agent.backends.windows.backend import WindowsBackend
from printcloud.agent.backends.windows.layout import pages_to_print, placement
from printcloud.agent.backends.windows.spooler import DeviceCaps, JobInfo, PdfSettings, PrinterInfo
from printcloud.protocol.messages import CustomPaper, Job

OFFICE = PrinterInfo("Office Laser", "USB001", "HP Universal Printing PCL 6", "", 0, 0, True)
LABEL = PrinterInfo("Zebra ZD420", "USB002", "ZDesigner ZD420-203dpi ZPL", "", 0, 0, False)
OFFICE_CAPS = DeviceCaps(
    paper_ids=(9, 1, 256),
    paper_names=("A4", "Letter", "Custom"),
    paper_sizes=((2100, 2970), (2159, 2794), (0, 0)),
    bin_ids=(7, 260, 261),
    bin_names=("Automatically Select", "Tray 1", "Tray 2"),
    resolutions=((600, 600), (1200, 1200)),
    media_type_names=("Plain", "Heavy"),
    duplex=True,
    color=True,
    collate=True,
    copies=999,
    nup=(1, 2, 4),
    min_extent=(762, 1270),
    max_extent=(2159, 3556),
    print_rate=40,
    print_rate_unit=1,
)
LABEL_CAPS = DeviceCaps(paper_ids=(120,), paper_names=("4x6 Roll",), paper_sizes=((1016, 0),), copies=1)


@dataclass
class FakeSpooler:
    """Win32 as the backend sees it: printers, a queue that the test moves, and what was spooled."""

    printers_: list[PrinterInfo] = field(default_factory=lambda: [OFFICE, LABEL])
    caps: dict[str, DeviceCaps] = field(default_factory=lambda: {OFFICE.name: OFFICE_CAPS, LABEL.name: LABEL_CAPS})
    raw: list[tuple[str, str, bytes]] = field(default_factory=list)
    pdf: list[tuple[str, str, bytes, PdfSettings]] = field(default_factory=list)
    # Successive answers of job(); when they run out the job has left the queue.
    queue: list[JobInfo] = field(default_factory=list)
    cancelled: list[int] = field(default_factory=list)

    def printers(self) -> list[PrinterInfo]:
        return list(self.printers_)

    def capabilities(self, printer: PrinterInfo) -> DeviceCaps:
        return self.caps[printer.name]

    def print_raw(self, printer: str, document_name: str, data: bytes) -> int:
        self.raw.append((printer, document_name, data))
        return 41

    def print_pdf(self, printer: str, document_name: str, data: bytes, settings: PdfSettings) -> int:
        self.pdf.append((printer, document_name, data, settings))
        return 42

    def job(self, printer: str, job_id: int) -> JobInfo | None:
        return self.queue.pop(0) if self.queue else None

    def cancel(self, printer: str, job_id: int) -> None:
        self.cancelled.append(job_id)


def job(
    printer: str = OFFICE.name,
    *,
    options: dict[str, object] | None = None,
    raw: bool = False,
    qty: int = 1,
    **extra: object,
) -> Job:
    return Job(
        job_id="j-1",
        printer_id="p-1",
        printer_name=printer,
        title="Invoice 42",
        content_type="raw_base64" if raw else "pdf_base64",
        qty=qty,
        options=options or {},
        file_sha256="0" * 64,
        file_size=4,
        download_path="/x",
        **extra,
    )


class Reports:
    def __init__(self) -> None:
        self.states: list[tuple[str, str | None]] = []

    async def __call__(self, state: str, message: str | None) -> None:
        self.states.append((state, message))


async def run(spooler: FakeSpooler, agent_job: Job) -> Reports:
    backend = WindowsBackend(spooler, poll_seconds=0)
    await backend.discover()
    reports = Reports()
    await backend.submit(agent_job, b"data", reports)
    return reports


async def test_capabilities_map_device_capabilities_to_the_api_object() -> None:
    office, label = await WindowsBackend(FakeSpooler()).discover()

    assert office.to_wire()["capabilities"] == {
        "papers": {"A4": [2100, 2970], "Letter": [2159, 2794], "Custom": [None, None]},
        "bins": ["Automatically Select", "Tray 1", "Tray 2"],
        "dpis": ["600x600", "1200x1200"],
        "medias": ["Plain", "Heavy"],
        "duplex": True,
        "color": True,
        "collate": True,
        "copies": 999,
        "nup": [1, 2, 4],
        "extent": [[762, 1270], [2159, 3556]],
        "printrate": {"rate": 40, "unit": "ppm"},
        "supports_custom_paper_size": True,
    }
    assert (office.is_default, office.description, office.state) == (True, "HP Universal Printing PCL 6", "online")
    label_caps = label.capabilities
    assert label_caps["papers"] == {"4x6 Roll": [1016, None]}  # a roll: no fixed length
    assert (label_caps["extent"], label_caps["printrate"], label_caps["nup"]) == (None, None, [1])
    assert label_caps["supports_custom_paper_size"] is False


async def test_paused_and_offline_printers_are_reported_offline_with_the_reason() -> None:
    status = c.PRINTER_STATUS_PAUSED | c.PRINTER_STATUS_PAPER_OUT
    paused = PrinterInfo("Office Laser", "USB001", "HP", "", status, 0, True)
    offline = PrinterInfo("Zebra ZD420", "USB002", "Z", "", 0, c.PRINTER_ATTRIBUTE_WORK_OFFLINE, False)
    office, label = await WindowsBackend(FakeSpooler(printers_=[paused, offline])).discover()
    assert (office.state, office.state_reasons) == ("offline", ["media-empty", "paused"])
    assert office.state_detail == "Windows reports printer Office Laser paused, out of paper"
    assert (label.state, label.state_reasons) == ("offline", ["offline"])
    assert label.state_detail == "Windows reports printer Zebra ZD420 set to use the printer offline"


@pytest.mark.parametrize(
    ("status", "reasons", "state"),
    [
        (c.PRINTER_STATUS_PAPER_OUT, ["media-empty"], "offline"),
        (c.PRINTER_STATUS_PAPER_JAM, ["media-jam"], "offline"),
        (c.PRINTER_STATUS_DOOR_OPEN, ["door-open"], "offline"),
        (c.PRINTER_STATUS_OFFLINE, ["offline"], "offline"),
        (c.PRINTER_STATUS_PAUSED, ["paused"], "offline"),
        (c.PRINTER_STATUS_NOT_AVAILABLE, ["offline"], "offline"),
        (c.PRINTER_STATUS_USER_INTERVENTION, ["other"], "offline"),
        (c.PRINTER_STATUS_TONER_LOW, ["toner-low"], "online"),
        (c.PRINTER_STATUS_NO_TONER, ["toner-empty"], "online"),
        (c.PRINTER_STATUS_MANUAL_FEED, ["media-needed"], "online"),
        (c.PRINTER_STATUS_OUTPUT_BIN_FULL, ["output-area-full"], "online"),
        (c.PRINTER_STATUS_PAPER_OUT | c.PRINTER_STATUS_PAPER_JAM, ["media-empty", "media-jam"], "offline"),
        # What the spooler says of a printer at work is not a problem.
        (c.PRINTER_STATUS_PRINTING | 0x00000200 | 0x00000100 | 0x00004000, [], "online"),
        (0x01000000 | 0x00010000 | 0x00008000, [], "online"),  # power save, warming up, initializing
    ],
)
async def test_the_spoolers_status_bits_become_ipp_reasons(status: int, reasons: list[str], state: str) -> None:
    printer = PrinterInfo("Office Laser", "USB001", "HP", "", status, 0, True)
    (office, _) = await WindowsBackend(FakeSpooler(printers_=[printer, LABEL])).discover()
    assert (office.state, office.state_reasons) == (state, reasons)
    assert bool(office.state_detail) == bool(reasons)


async def test_a_printer_busy_with_another_job_takes_the_next_one() -> None:
    busy = PrinterInfo(OFFICE.name, "USB001", "HP", "", c.PRINTER_STATUS_PRINTING, 0, True)
    spooler = FakeSpooler(queue=[JobInfo(c.JOB_STATUS_PRINTING, ""), JobInfo(c.JOB_STATUS_PRINTED, "")])
    backend = WindowsBackend(spooler, poll_seconds=0)
    await backend.discover()
    spooler.printers_ = [busy, LABEL]
    reports = Reports()
    await backend.submit(job(), b"data", reports)
    assert [state for state, _ in reports.states] == ["printing", "done"]


async def test_raw_jobs_are_spooled_as_raw_data_and_ignore_options() -> None:
    spooler = FakeSpooler(queue=[JobInfo(c.JOB_STATUS_PRINTING, "")])
    reports = await run(spooler, job(LABEL.name, raw=True, options={"duplex": "long-edge"}))
    assert spooler.raw == [(LABEL.name, "Invoice 42", b"data")]
    assert spooler.pdf == []
    assert reports.states == [("printing", None), ("done", None)]


async def test_rule_6_honours_the_windows_options_in_the_devmode() -> None:
    spooler = FakeSpooler()
    options = {
        "pages": "1-3,5",
        "copies": 2,
        "fit_to_page": True,
        "rotate": 90,
        "color": False,
        "duplex": "short-edge",
        "paper": "Letter",
        "bin": "Tray 2",
    }
    reports = await run(spooler, job(options=options, qty=3))
    [(_, _, _, settings)] = spooler.pdf
    assert settings == PdfSettings(
        copies=6,
        duplex=c.DMDUP_HORIZONTAL,
        color=c.DMCOLOR_MONOCHROME,
        paper_size=1,
        default_source=261,
        pages=(0, 1, 2, 4),
        rotate=90,
        fit_to_page=True,
    )
    assert reports.states == [("printing", None), ("done", None)]


@pytest.mark.parametrize(
    ("options", "warning"),
    [
        ({"dpi": "600x600"}, "dpi ignored: dpi is not applied on Windows"),
        ({"media": "Plain"}, "media ignored: media is not applied on Windows"),
        ({"collate": True}, "collate ignored: collate is not applied on Windows"),
        ({"nup": 2}, "nup ignored: nup is not applied on Windows"),
        ({"rotate": 180}, "rotate ignored: rotate 180 is not applied on Windows, the job prints unrotated"),
    ],
)
async def test_each_rule_6_warning_ends_in_the_done_message(options: dict[str, object], warning: str) -> None:
    spooler = FakeSpooler()
    reports = await run(spooler, job(options=options))
    [(_, _, _, settings)] = spooler.pdf
    assert settings == PdfSettings()  # nothing of the ignored option reaches the DEVMODE
    assert reports.states[-1] == ("done", warning)


async def test_all_rule_6_warnings_together() -> None:
    options = {"dpi": "600x600", "media": "Plain", "collate": True, "nup": 4, "rotate": 180, "copies": 2}
    reports = await run(FakeSpooler(), job(options=options))
    state, message = reports.states[-1]
    assert state == "done" and message is not None
    assert [part.split(" ignored")[0] for part in message.split("; ")] == ["dpi", "media", "collate", "nup", "rotate"]


async def test_a_custom_paper_sent_with_the_job_sets_a_user_paper_size() -> None:
    spooler = FakeSpooler()
    custom = CustomPaper(name="Receipt", width=800, height=2000)
    await run(spooler, job(options={"paper": "Receipt"}, custom_paper=custom))
    [(_, _, _, settings)] = spooler.pdf
    assert (settings.paper_size, settings.paper_dimensions) == (c.DMPAPER_USER, (800, 2000))


async def test_a_job_deleted_in_the_queue_ends_in_error() -> None:
    spooler = FakeSpooler(queue=[JobInfo(0, ""), JobInfo(c.JOB_STATUS_DELETING, "")])
    reports = await run(spooler, job())
    assert reports.states[-1][0] == "error"
    assert "deleted" in (reports.states[-1][1] or "")


async def test_a_paused_printer_fails_the_job_without_spooling_it() -> None:
    paused = PrinterInfo(OFFICE.name, "USB001", "HP", "", c.PRINTER_STATUS_PAUSED, 0, True)
    spooler = FakeSpooler()
    backend = WindowsBackend(spooler, poll_seconds=0)
    await backend.discover()
    spooler.printers_ = [paused, LABEL]
    reports = Reports()
    await backend.submit(job(), b"data", reports)
    assert reports.states == [("error", "Windows reports printer Office Laser paused")]
    assert spooler.pdf == []


async def test_a_printer_paused_while_the_job_waits_withdraws_it() -> None:
    spooler = FakeSpooler(queue=[JobInfo(0, ""), JobInfo(0, "")])
    backend = WindowsBackend(spooler, poll_seconds=0)
    await backend.discover()
    reports = Reports()
    original = spooler.job

    def pause_after_first_poll(printer: str, job_id: int) -> JobInfo | None:
        spooler.printers_ = [PrinterInfo(OFFICE.name, "USB001", "HP", "", c.PRINTER_STATUS_PAUSED, 0, True)]
        return original(printer, job_id)

    # The fake's poll is wrapped for this test alone.
    spooler.job = pause_after_first_poll  # type: ignore[method-assign]
    await backend.submit(job(), b"data", reports)
    assert spooler.cancelled == [42]
    assert reports.states[-1][0] == "error" and "withdrawn" in (reports.states[-1][1] or "")


def test_pdf_layout_selects_existing_pages_and_fits_keeping_proportions() -> None:
    assert pages_to_print((0, 1, 2, 4), 3) == [0, 1, 2]
    assert pages_to_print(None, 2) == [0, 1]
    assert placement((1000, 500), (2000, 2000), fit=True) == (0, 500, 2000, 1500)
    assert placement((1000, 500), (2000, 2000), fit=False) == (0, 0, 1000, 500)
