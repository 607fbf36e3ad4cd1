"""The `job` message as the agent reads it (PROTOCOL.md, `job`)."""

from __future__ import annotations

import json

import pytest

from printcloud.protocol.messages import CustomPaper, Job
from printcloud.protocol.parsing import ProtocolError, UnknownMessage, parse_gateway_message

JOB = {
    "type": "job",
    "jobId": "j-1",
    "printerId": "p-1",
    "printerName": "virtual-office",
    "title": "Test",
    "contentType": "pdf_base64",
    "fileSha256": "AB" * 32,
    "fileSize": 5,
    "downloadPath": "/agent/v1/jobs/j-1/file?token=t",
}
VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def _job(**changes: object) -> Job:
    parsed = parse_gateway_message(json.dumps({**JOB, **changes}))
    assert isinstance(parsed, Job)
    return parsed


def test_a_w3c_traceparent_is_kept() -> None:
    assert _job(traceparent=VALID).traceparent == VALID


@pytest.mark.parametrize(
    "value", [None, 42, "", "00-xyz-00f067aa0ba902b7-01", VALID + "\r\nX-Injected: 1", VALID.upper()]
)
def test_anything_else_is_dropped(value: object) -> None:
    message = {**JOB} if value is None else {**JOB, "traceparent": value}
    parsed = parse_gateway_message(json.dumps(message))
    assert isinstance(parsed, Job) and parsed.traceparent is None


def test_absent_fields_take_their_defaults_and_the_checksum_is_lowercase() -> None:
    job = _job(qty=0, options=None, customPaper="not an object")
    assert (job.qty, job.options, job.custom_paper) == (1, {}, None)
    assert job.file_sha256 == "ab" * 32
    assert not job.is_raw and _job(contentType="raw_base64").is_raw


def test_a_custom_paper_is_read() -> None:
    paper = _job(customPaper={"name": "Receipt", "width": 800, "height": 2000}).custom_paper
    assert paper == CustomPaper(name="Receipt", width=800, height=2000)


def test_the_wire_form_round_trips_and_omits_what_is_unset() -> None:
    job = _job()
    assert job.to_wire() == {**JOB, "fileSha256": "ab" * 32, "qty": 1, "options": {}}
    assert "customPaper" not in job.to_wire() and "traceparent" not in job.to_wire()


@pytest.mark.parametrize("missing", ["jobId", "fileSize", "downloadPath"])
def test_a_job_without_a_required_field_is_malformed(missing: str) -> None:
    with pytest.raises(ProtocolError, match=missing):
        parse_gateway_message(json.dumps({k: v for k, v in JOB.items() if k != missing}))


def test_unknown_types_are_returned_as_such_and_non_objects_refused() -> None:
    assert parse_gateway_message('{"type": "job.later", "x": 1}') == UnknownMessage("job.later")
    with pytest.raises(ProtocolError):
        parse_gateway_message("[1]")
    with pytest.raises(ProtocolError):
        parse_gateway_message("{")
