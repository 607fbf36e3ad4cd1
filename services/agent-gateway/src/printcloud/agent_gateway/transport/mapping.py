"""Protocol v1 messages to and from the gRPC messages of devices and jobs."""

from __future__ import annotations

import json

from printcloud.protocol.messages import ComputerInfo, CustomPaper, Job, PrinterReport
from printcloud.v1 import devices_pb2, jobs_pb2


def computer_report(computer: ComputerInfo) -> devices_pb2.ComputerReport:
    return devices_pb2.ComputerReport(
        hostname=computer.hostname,
        os=computer.os,
        os_version=computer.os_version,
        arch=computer.arch,
        agent_version=computer.agent_version,
    )


def printer_reports(printers: list[PrinterReport]) -> list[devices_pb2.PrinterReport]:
    return [
        devices_pb2.PrinterReport(
            name=printer.name,
            os_name=printer.os_name,
            description=printer.description,
            is_default=printer.is_default,
            state=printer.state,
            state_detail=printer.state_detail,
            state_reasons=printer.state_reasons,
            capabilities_json=json.dumps(printer.capabilities),
            default_options_json=json.dumps(printer.default_options),
        )
        for printer in printers
    ]


def job_message(delivery: jobs_pb2.JobDelivery) -> Job:
    """The `job` message of a delivery; its download path and trace are the gateway's to add."""
    paper = delivery.custom_paper if delivery.HasField("custom_paper") else None
    return Job(
        job_id=delivery.job_id,
        printer_id=delivery.printer_id,
        printer_name=delivery.printer_name,
        title=delivery.title,
        content_type=delivery.content_type,
        qty=delivery.qty,
        options=json.loads(delivery.options_json or "{}"),
        file_sha256=delivery.file_sha256,
        file_size=delivery.file_size,
        download_path="",
        custom_paper=CustomPaper(name=paper.name, width=paper.width, height=paper.height) if paper else None,
    )
