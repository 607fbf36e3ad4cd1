"""Protocol v1 messages to and from the gRPC messages of devices and jobs."""

from __future__ import annotations

import base64
import json

from printcloud.core.rpc.by_name import ByName
from printcloud.protocol.messages import ComputerInfo, CustomPaper, Job, PrinterReport
from printcloud.v1 import devices_pb2, jobs_pb2

# Each report's message is the protocol's report by name: a field both gain needs no line here.
_COMPUTER = ByName(devices_pb2.ComputerReport, ComputerInfo.model_fields, "ComputerInfo")
_PRINTER = ByName(devices_pb2.PrinterReport, PrinterReport.model_fields, "PrinterReport")


def computer_report(computer: ComputerInfo) -> devices_pb2.ComputerReport:
    return _COMPUTER.message(computer)


def printer_reports(printers: list[PrinterReport]) -> list[devices_pb2.PrinterReport]:
    return [_PRINTER.message(printer) for printer in printers]


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
        content=base64.b64encode(delivery.content).decode() if delivery.HasField("content") else None,
    )
