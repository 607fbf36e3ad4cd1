"""The `job` message of agent protocol v1 as built from a delivery."""

from __future__ import annotations

from printcloud.agent_gateway.transport.mapping import job_message
from printcloud.v1 import jobs_pb2


def _delivery(custom_paper: jobs_pb2.PaperSize | None = None) -> jobs_pb2.JobDelivery:
    return jobs_pb2.JobDelivery(
        job_id="j", printer_id="p", printer_name="office", title="t", content_type="pdf_base64", qty=1,
        options_json='{"paper": "Label"}', file_sha256="00", file_size=3, custom_paper=custom_paper,
    )  # fmt: skip


def test_a_custom_paper_goes_with_the_job_as_custom_paper() -> None:
    paper = jobs_pb2.PaperSize(name="Label", width=620, height=1000)
    message = job_message(_delivery(custom_paper=paper)).to_wire()
    assert message["customPaper"] == {"name": "Label", "width": 620, "height": 1000}
    assert message["options"] == {"paper": "Label"}


def test_no_custom_paper_no_field() -> None:
    assert "customPaper" not in job_message(_delivery()).to_wire()


def test_a_file_that_came_with_the_delivery_goes_as_base64_content() -> None:
    delivery = _delivery()
    delivery.content = b"%PD"
    assert job_message(delivery).to_wire()["content"] == "JVBE"
    assert "content" not in job_message(_delivery()).to_wire()
