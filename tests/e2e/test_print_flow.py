"""A test-mode job walks queued -> sent -> received -> printing -> done through every service."""

from __future__ import annotations

import hashlib

import httpx

from tests.e2e.client import MINIMAL_PDF, PDF_BASE64, eventually


def _create(client: httpx.Client, printer_id: str, title: str = "Invoice 42") -> dict:
    response = client.post(
        "/v1/printjobs",
        json={"printerId": printer_id, "title": title, "contentType": "pdf_base64", "content": PDF_BASE64},
    )
    assert response.status_code == 201, response.text
    return response.json()


def _wait_terminal(client: httpx.Client, job_id: str) -> dict:
    def terminal() -> dict | None:
        job = client.get(f"/v1/printjobs/{job_id}").json()
        return job if job["state"] in ("done", "error", "cancelled", "expired") else None

    return eventually(terminal, timeout=30, what=f"job {job_id} to end")


def test_test_job_prints_through_the_virtual_agent(client: httpx.Client, virtual_printers: dict) -> None:
    printer = virtual_printers["virtual-office"]
    job = _create(client, printer["id"])

    assert job["state"] == "queued"
    assert job["printerId"] == printer["id"]
    assert job["computerId"] == printer["computerId"]
    assert job["mode"] == "test"
    assert job["fileSha256"] == hashlib.sha256(MINIMAL_PDF).hexdigest()
    assert job["fileSize"] == len(MINIMAL_PDF)
    assert job["source"] == "api" and job["qty"] == 1 and job["expireAfter"] == 86400

    done = _wait_terminal(client, job["id"])
    assert done["state"] == "done", done
    for stamp in ("sentAt", "receivedAt", "printingAt", "finishedAt"):
        assert done[stamp] is not None, stamp

    history = client.get(f"/v1/printjobs/{job['id']}/events").json()["data"]
    assert [(c["state"], c["actor"]) for c in history] == [
        ("queued", "api"),
        ("sent", "system"),
        ("received", "agent"),
        ("printing", "agent"),
        ("done", "agent"),
    ]


def test_fail_in_title_ends_in_error_with_a_message(client: httpx.Client, virtual_printers: dict) -> None:
    job = _create(client, virtual_printers["virtual-office"]["id"], title="Quarterly report [fail]")

    ended = _wait_terminal(client, job["id"])

    assert ended["state"] == "error"
    assert ended["stateMessage"]
    history = client.get(f"/v1/printjobs/{job['id']}/events").json()["data"]
    assert history[-1]["state"] == "error" and history[-1]["message"] == ended["stateMessage"]


def test_raw_job_prints_on_the_label_printer(client: httpx.Client, virtual_printers: dict) -> None:
    zpl = "XlhBXkZPNTAsNTBeQURONTAsNTBeRkRQcmludENsb3VkXkZTXlha"  # ^XA^FO50,50^ADN50,50^FDPrintCloud^FS^XZ
    response = client.post(
        "/v1/printjobs",
        json={
            "printerId": virtual_printers["virtual-label"]["id"],
            "title": "Shipping label",
            "contentType": "raw_base64",
            "content": zpl,
        },
    )
    assert response.status_code == 201, response.text

    assert _wait_terminal(client, response.json()["id"])["state"] == "done"
