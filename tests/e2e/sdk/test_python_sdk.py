"""The Python SDK against the real stack: printing and waiting, typed answers and errors,
paging and the event feed, with the sync and the async client. Webhook endpoints need a stack
that may send to loopback: tests/e2e/contract/test_sdk_webhooks.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from printcloud_sdk import (
    AsyncPrintCloud,
    InvalidRequestError,
    NotFoundError,
    PrintCloud,
    PrinterLookupError,
    UnprocessableError,
    models,
)
from tests.e2e.client import MINIMAL_PDF
from tests.e2e.sdk.conftest import ApiUser

EXAMPLE = Path(__file__).parents[3] / "sdk" / "python" / "examples" / "print_and_wait.py"


@pytest.fixture
def client(api_user: ApiUser) -> PrintCloud:
    return PrintCloud(api_user.key, base_url=api_user.base_url)


def test_a_pdf_printed_by_name_ends_done_with_its_options(client: PrintCloud, tmp_path: Path) -> None:
    document = tmp_path / "invoice.pdf"
    document.write_bytes(MINIMAL_PDF)
    with client:
        job = client.print_jobs.print_file(
            document, printer="virtual-office", options=models.PrintOptions(copies=2, duplex=models.Duplex.LONG_EDGE)
        )
        assert (job.state, job.content_type, job.title) == ("queued", "pdf_base64", "invoice.pdf")
        final = client.print_jobs.wait(job.id, timeout=60, poll_interval=0.5)
        assert final.state == models.JobState.DONE and final.finished_at is not None
        assert final.options.copies == 2 and final.options.duplex == "long-edge"
        history = client.print_jobs.history(job.id)
        assert history[0].state == "queued" and history[-1].state == "done"
        done_jobs = list(client.print_jobs.iterate(state="done", printer_id=job.printer_id))
        assert job.id in {found.id for found in done_jobs}


def test_raw_data_is_sent_raw_and_a_failing_job_ends_in_error(client: PrintCloud, tmp_path: Path) -> None:
    label = tmp_path / "label.zpl"
    label.write_bytes(b"^XA^FO50,50^FDPrintCloud^FS^XZ")
    with client:
        label_printer = client.printers.find("virtual-label")
        job = client.print_jobs.print_file(label, printer=label_printer.id, title="[fail] a label")
        assert job.content_type == "raw_base64" and job.printer_id == label_printer.id
        final = client.print_jobs.wait(job.id, timeout=60, poll_interval=0.5)
        assert final.state == "error" and final.state_message


def test_errors_are_typed_and_carry_the_request_id(client: PrintCloud, tmp_path: Path) -> None:
    document = tmp_path / "a.pdf"
    document.write_bytes(MINIMAL_PDF)
    with client:
        with pytest.raises(NotFoundError) as missing:
            client.print_jobs.get("00000000-0000-4000-8000-000000000000")
        error = missing.value
        assert (error.status, error.code) == (404, "not_found")
        assert error.request_id and error.request_id == error.response.headers["x-request-id"]
        with pytest.raises(InvalidRequestError) as invalid:
            client.print_jobs.print_file(document, printer="virtual-office", options={"staple": True})
        assert "staple" in invalid.value.message
        with pytest.raises(UnprocessableError) as not_pdf:
            client.print_jobs.create(
                printer_id=client.printers.find("virtual-office").id,
                title="x",
                content_type="pdf_base64",
                content="QUJD",
            )
        assert not_pdf.value.code == "invalid_content"
        with pytest.raises(PrinterLookupError):
            client.print_jobs.print_file(document, printer="no such printer")


def test_a_repeated_create_with_the_same_key_is_the_same_job(client: PrintCloud, tmp_path: Path) -> None:
    document = tmp_path / "once.pdf"
    document.write_bytes(MINIMAL_PDF)
    with client:
        first = client.print_jobs.print_file(document, printer="virtual-photo", idempotency_key="sdk-e2e-once")
        again = client.print_jobs.print_file(document, printer="virtual-photo", idempotency_key="sdk-e2e-once")
    assert again.id == first.id


def test_printer_settings_and_the_feed(client: PrintCloud) -> None:
    with client:
        windows = client.printers.find("virtual-windows")
        updated = client.printers.update(
            windows.id, custom_papers=[models.CustomPaper(name="Card", width=850, height=550)], remarks="front"
        )
        assert [paper.name for paper in updated.custom_papers] == ["Card"] and updated.remarks == "front"
        assert client.printers.update(windows.id, remarks=None).remarks is None
        assert isinstance(updated.capabilities.papers["A4"], list) and updated.capabilities.duplex is True
        # The feed, followed from its first event, reaches the printer's two updates in order.
        follower = client.events.follow(types={"printer.updated"}, poll_interval=0.5)
        changes = []
        for event in follower:
            assert isinstance(event, models.PrinterUpdatedEvent)
            if event.data.id == windows.id:
                changes.append(event.data.changes["remarks"].to)
            if len(changes) == 2:
                break
        assert changes == ["front", None]


async def test_the_async_client(api_user: ApiUser) -> None:
    async with AsyncPrintCloud(api_user.key, base_url=api_user.base_url) as client:
        identity = await client.whoami()
        assert identity.mode == "test" and identity.organization.name == "SDK-users"
        printers = [printer async for printer in client.printers.iterate()]
        assert {printer.name for printer in printers} >= {"virtual-office", "virtual-label"}
        job = await client.print_jobs.create(
            printer_id=printers[0].id, title="async", content_type="raw_base64", content="QUJD"
        )
        assert (await client.print_jobs.wait(job.id, timeout=60, poll_interval=0.5)).state == "done"


def test_the_example_prints_on_the_virtual_office_printer_and_waits(api_user: ApiUser) -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLE)], env=api_user.env(), capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1].endswith(": done"), run.stdout
