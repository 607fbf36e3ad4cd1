import asyncio
from pathlib import Path

import pytest

from printcloud.agent.backends.print_ledger import PrintLedger, printed_jobs
from printcloud.agent.backends.virtual import FAIL_MESSAGE, VirtualBackend
from printcloud.protocol.messages import Job
from printcloud.protocol.virtual_computer import virtual_printers


def make_job(printer: str = "virtual-office", title: str = "Invoice", options: dict[str, object] | None = None) -> Job:
    return Job(
        job_id="job-1",
        printer_id="p-1",
        printer_name=printer,
        title=title,
        content_type="pdf_base64",
        qty=1,
        options=options or {},
        file_sha256="00",
        file_size=5,
        download_path="/x",
    )


class Reports:
    def __init__(self) -> None:
        self.items: list[tuple[str, str | None]] = []
        self.printing = asyncio.Event()

    async def __call__(self, state: str, message: str | None) -> None:
        self.items.append((state, message))
        if state == "printing":
            self.printing.set()


async def test_discover_returns_the_four_virtual_printers() -> None:
    found = await VirtualBackend().discover()
    assert [p.name for p in found] == [p.name for p in virtual_printers()]


async def test_job_walks_printing_then_done_without_warnings() -> None:
    reports = Reports()
    await VirtualBackend(printing_after=0.01, done_after=0.01).submit(make_job(), b"%PDF-", reports)
    assert reports.items == [("printing", None), ("done", None)]


async def test_fail_in_title_ends_in_error() -> None:
    reports = Reports()
    await VirtualBackend(printing_after=0, done_after=0).submit(make_job(title="Test [fail] job"), b"%PDF-", reports)
    assert reports.items == [("printing", None), ("error", FAIL_MESSAGE)]


async def test_dropped_options_are_named_in_the_done_message() -> None:
    reports = Reports()
    job = make_job("virtual-windows", options={"dpi": "600x600", "rotate": 180, "copies": 2})
    await VirtualBackend(printing_after=0, done_after=0).submit(job, b"%PDF-", reports)
    state, message = reports.items[-1]
    assert state == "done"
    assert message is not None and "dpi ignored" in message and "rotate ignored" in message
    assert "copies" not in message


async def test_unknown_printer_is_an_error() -> None:
    reports = Reports()
    await VirtualBackend(printing_after=0, done_after=0).submit(make_job("nope"), b"", reports)
    assert reports.items == [("error", "No virtual printer named 'nope' on this computer")]


async def test_cancelled_job_never_reports_done() -> None:
    reports = Reports()
    backend = VirtualBackend(printing_after=0, done_after=60)
    task = asyncio.create_task(backend.submit(make_job(), b"%PDF-", reports))
    await asyncio.wait_for(reports.printing.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert reports.items == [("printing", None)]


async def test_a_print_ledger_records_each_printed_job_and_nothing_for_a_refused_one(tmp_path: Path) -> None:
    ledger = tmp_path / "printed.jsonl"
    backend = VirtualBackend(printing_after=0, done_after=0, print_ledger=PrintLedger(ledger))
    await backend.submit(make_job(), b"%PDF-", Reports())
    await backend.submit(make_job("nope"), b"", Reports())
    assert printed_jobs(ledger) == [make_job().job_id]


async def test_a_reason_in_the_title_is_reported_while_the_job_waits_for_it() -> None:
    backend = VirtualBackend(printing_after=0.01, done_after=0.01, reason_seconds=0.3)
    changed = backend.printers_changed()
    reports = Reports()
    title = "Label [reason:media-empty-error] [reason:toner-low]"
    job = asyncio.create_task(backend.submit(make_job("virtual-label", title), b"^XA^XZ", reports))
    await asyncio.wait_for(changed.wait(), 1)
    changed.clear()
    label = {p.name: p for p in await backend.discover()}["virtual-label"]
    assert (label.state, label.state_reasons) == ("offline", ["media-empty", "toner-low"])
    assert label.state_detail == "The printer reports out of paper, toner low (simulated by a test job)"
    assert reports.items == [], "the job waits while its printer is out of paper"
    others = [p for p in await backend.discover() if p.name != "virtual-label"]
    assert {(p.state, tuple(p.state_reasons)) for p in others} == {("online", ())}

    await asyncio.wait_for(job, 2)
    assert changed.is_set(), "the reason clearing is a change too"
    assert [state for state, _ in reports.items] == ["printing", "done"]
    assert await backend.discover() == virtual_printers()


async def test_a_warning_alone_leaves_the_virtual_printer_online() -> None:
    backend = VirtualBackend(printing_after=0, done_after=0, reason_seconds=0.3)
    job = asyncio.create_task(backend.submit(make_job(title="[reason:toner-low]"), b"%PDF-", Reports()))
    await asyncio.wait_for(backend.printers_changed().wait(), 1)
    office = (await backend.discover())[0]
    assert (office.state, office.state_reasons) == ("online", ["toner-low"])
    await job
