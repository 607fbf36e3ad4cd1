"""The job's `traceparent` is echoed only in its W3C form (PROTOCOL.md, `job`)."""

from __future__ import annotations

import pytest

from printcloud.agent.model import AgentJob

JOB = {
    "jobId": "j-1",
    "printerId": "p-1",
    "printerName": "virtual-office",
    "title": "Test",
    "contentType": "pdf_base64",
    "fileSha256": "ab" * 32,
    "fileSize": 5,
    "downloadPath": "/agent/v1/jobs/j-1/file?token=t",
}
VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_a_w3c_traceparent_is_kept() -> None:
    assert AgentJob.from_wire({**JOB, "traceparent": VALID}).traceparent == VALID


@pytest.mark.parametrize(
    "value", [None, 42, "", "00-xyz-00f067aa0ba902b7-01", VALID + "\r\nX-Injected: 1", VALID.upper()]
)
def test_anything_else_is_dropped(value: object) -> None:
    message = {**JOB} if value is None else {**JOB, "traceparent": value}
    assert AgentJob.from_wire(message).traceparent == ""
