"""Test mode lets a client meet a printer that cannot print: a virtual job titled
`[reason:media-empty]` makes its printer report the reason while the job waits, through the same
agent, devices, events and jobs as a live printer."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, eventually, every_item
from tests.e2e.tenants import create_key, create_org

OUT_OF_PAPER = "Waiting: the printer reports media-empty (out of paper)"


@pytest.fixture(scope="module")
def paperless(stack: Stack) -> Iterator[httpx.Client]:
    """An organization of its own: its virtual printer goes out of paper without touching others'."""
    with api(stack.api_url, create_key(stack, create_org(stack, "Paperless"), "test", "read,print,admin")) as client:
        yield client


def test_a_job_asking_for_a_reason_waits_and_says_why_while_its_printer_reports_it(paperless: httpx.Client) -> None:
    def online_label() -> dict | None:
        printers = {p["name"]: p for p in paperless.get("/v1/printers").json()["data"]}
        label = printers.get("virtual-label")
        return label if label is not None and label["state"] == "online" else None

    label = eventually(online_label, timeout=60, what="the virtual label printer online")
    assert (label["stateReasons"], label["stateDetail"]) == ([], "")
    body = {"printerId": label["id"], "title": "Label [reason:media-empty]", "contentType": "pdf_base64"}
    job = paperless.post("/v1/printjobs", json={**body, "content": PDF_BASE64}).json()

    def waiting() -> dict | None:
        found = paperless.get(f"/v1/printjobs/{job['id']}").json()
        assert found["state"] != "done", "the job ended before it said it waited"
        return found if found["stateMessage"] == OUT_OF_PAPER else None

    assert eventually(waiting, timeout=30, what="the job waiting for paper")["state"] in ("sent", "received")
    empty = paperless.get(f"/v1/printers/{label['id']}").json()
    assert (empty["state"], empty["stateReasons"]) == ("offline", ["media-empty"])
    assert empty["stateDetail"] == "The printer reports out of paper (simulated by a test job)"

    def done() -> dict | None:
        found = paperless.get(f"/v1/printjobs/{job['id']}").json()
        return found if found["state"] == "done" else None

    assert eventually(done, timeout=30, what="the job printed once the paper is back")["stateMessage"] is None
    back = paperless.get(f"/v1/printers/{label['id']}").json()
    assert (back["state"], back["stateReasons"], back["stateDetail"]) == ("online", [], "")

    def announced() -> list[tuple[str, list[str]]] | None:
        mine = [e for e in every_item(paperless, "/v1/events", dir="asc") if e["data"].get("id") == label["id"]]
        changes = [
            (e["type"], e["data"]["stateReasons"]) for e in mine if e["type"] in ("printer.offline", "printer.online")
        ]
        return changes if len(changes) >= 3 else None

    assert eventually(announced, timeout=30, what="the printer's events in the feed") == [
        ("printer.online", []),  # its agent connected
        ("printer.offline", ["media-empty"]),
        ("printer.online", []),
    ]
