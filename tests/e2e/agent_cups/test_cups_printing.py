"""Live jobs through the whole stack and the real agent into cupsd: a cups-pdf queue and an IPP
Everywhere printer (ippeveprinter), checked on the CUPS side with ipptool and pdfinfo."""

from __future__ import annotations

import base64
import subprocess
import uuid
from pathlib import Path

import httpx

from tests.e2e.agent_cups.conftest import RunningAgent
from tests.e2e.agent_cups.cups_tools import (
    CUPS_PDF_OUT,
    IPP_QUEUE,
    IPPEVE_SPOOL,
    PDF_QUEUE,
    jobs_named,
    listed,
    make_pdf,
    pdf_pages,
)
from tests.e2e.client import eventually

TERMINAL = ("done", "error", "cancelled", "expired")


def submit(live: httpx.Client, printer: dict, title: str, pdf: bytes, options: dict) -> dict:
    response = live.post(
        "/v1/printjobs",
        json={
            "printerId": printer["id"],
            "title": title,
            "contentType": "pdf_base64",
            "content": base64.b64encode(pdf).decode(),
            "options": options,
        },
    )
    assert response.status_code == 201, response.text
    assert response.json()["mode"] == "live"
    return response.json()


def wait_terminal(live: httpx.Client, job_id: str, agent: RunningAgent, timeout: float = 60) -> dict:
    def ended() -> dict | None:
        assert agent.process.poll() is None, f"the agent exited:\n{agent.output()}"
        job = live.get(f"/v1/printjobs/{job_id}").json()
        return job if job["state"] in TERMINAL else None

    return eventually(ended, timeout=timeout, what=f"job {job_id} to end")


def unique(title: str) -> str:
    return f"{title} {uuid.uuid4().hex[:8]}"


def test_a_pdf_lands_in_the_cups_pdf_folder_with_its_pages_and_paper(
    live: httpx.Client, cups_printers: dict, agent: RunningAgent
) -> None:
    printer = cups_printers[PDF_QUEUE]
    assert printer["isDefault"] is True  # scripts/ci-cups.sh makes it the CUPS default
    before = set(CUPS_PDF_OUT.glob("*.pdf"))
    title = unique("Three pages")
    # cups-pdf cannot print two-sided: duplex is dropped with a warning and the job still prints.
    options = {"copies": 2, "paper": "iso_a3_297x420mm", "duplex": "long-edge"}
    job = submit(live, printer, title, make_pdf(3), options)

    ended = wait_terminal(live, job["id"], agent)

    assert ended["state"] == "done", ended
    assert "duplex ignored" in (ended["stateMessage"] or "")
    new = eventually(lambda: set(CUPS_PDF_OUT.glob("*.pdf")) - before, what="the cups-pdf output file")
    assert len(new) == 1, new
    pages, size = pdf_pages(new.pop())
    assert pages == 3
    assert "842 x 1191" in size, size  # A3 in points: the paper option reached the PDF
    [cups_job] = jobs_named(PDF_QUEUE, title, Path("/tmp"))
    assert cups_job["copies"] == 2 and cups_job["media"] == "iso_a3_297x420mm"
    assert [e["state"] for e in live.get(f"/v1/printjobs/{job['id']}/events").json()["data"]] == [
        "queued",
        "sent",
        "received",
        "printing",
        "done",
    ]


def test_copies_sides_and_media_reach_the_ipp_everywhere_printer(
    live: httpx.Client, cups_printers: dict, agent: RunningAgent, tmp_path: Path
) -> None:
    printer = cups_printers[IPP_QUEUE]
    before = set(IPPEVE_SPOOL.glob("*.pdf"))
    title = unique("Duplex report")
    options = {"copies": 2, "duplex": "long-edge", "paper": "iso_a4_210x297mm", "bin": "main", "media": "stationery"}
    job = submit(live, printer, title, make_pdf(2), options)

    ended = wait_terminal(live, job["id"], agent)

    assert ended["state"] == "done", ended
    assert ended["stateMessage"] is None
    [cups_job] = jobs_named(IPP_QUEUE, title, tmp_path)
    assert cups_job["job-state"] == 9  # completed
    assert cups_job["copies"] == 2
    assert cups_job["sides"] == "two-sided-long-edge"
    [media] = listed(cups_job["media-col"])
    assert media["media-size"] == {"x-dimension": 21000, "y-dimension": 29700}
    assert (media["media-source"], media["media-type"]) == ("main", "stationery")
    documents = set(IPPEVE_SPOOL.glob("*.pdf")) - before
    assert len(documents) == 1, documents
    assert pdf_pages(documents.pop())[0] >= 2


def test_a_stopped_queue_goes_offline_and_fails_the_job_with_the_reason(
    live: httpx.Client, cups_printers: dict, agent: RunningAgent, tmp_path: Path
) -> None:
    printer = cups_printers[PDF_QUEUE]
    reason = f"Paper jam in test {uuid.uuid4().hex[:6]}"
    subprocess.run(["cupsdisable", "-r", reason, PDF_QUEUE], check=True)
    try:

        def offline() -> dict | None:
            found = live.get(f"/v1/printers/{printer['id']}").json()
            return found if found["state"] == "offline" and reason in found["stateDetail"] else None

        eventually(offline, timeout=30, what="the stopped queue reported offline with the reason")
        title = unique("Into a stopped queue")
        job = submit(live, printer, title, make_pdf(1), {})

        ended = wait_terminal(live, job["id"], agent)

        assert ended["state"] == "error", ended
        assert "stopped" in ended["stateMessage"] and reason in ended["stateMessage"]
        assert jobs_named(PDF_QUEUE, title, tmp_path) == []  # nothing left waiting in CUPS
    finally:
        subprocess.run(["cupsenable", PDF_QUEUE], check=True)

    def back() -> dict | None:
        found = live.get(f"/v1/printers/{printer['id']}").json()
        return found if found["state"] == "online" else None

    assert eventually(back, timeout=30, what="the queue back online")["stateDetail"] == ""
