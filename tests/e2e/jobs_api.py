"""Small helpers over the public print-job API, for every end-to-end suite."""

from __future__ import annotations

from typing import Any

import httpx

from tests.e2e.client import PDF_BASE64, eventually

TERMINAL = ("done", "error", "cancelled", "expired")


def pdf_body(printer_id: str, **fields: Any) -> dict[str, Any]:
    return {
        "printerId": printer_id,
        "title": "Invoice 42",
        "contentType": "pdf_base64",
        "content": PDF_BASE64,
        **fields,
    }


def url_body(printer_id: str, url: str, content_type: str = "pdf_uri", **fields: Any) -> dict[str, Any]:
    return {"printerId": printer_id, "title": "From a URL", "contentType": content_type, "content": url, **fields}


def create(client: httpx.Client, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    response = client.post("/v1/printjobs", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def wait_terminal(client: httpx.Client, job_id: str, timeout: float = 30) -> dict[str, Any]:
    def terminal() -> dict[str, Any] | None:
        job = client.get(f"/v1/printjobs/{job_id}").json()
        return job if job["state"] in TERMINAL else None

    return eventually(terminal, timeout=timeout, what=f"job {job_id} to end")


def history(client: httpx.Client, job_id: str) -> list[dict[str, Any]]:
    return client.get(f"/v1/printjobs/{job_id}/events").json()["data"]
