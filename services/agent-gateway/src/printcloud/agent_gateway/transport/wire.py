"""Protocol v1 JSON to and from the gRPC messages of devices and jobs."""

from __future__ import annotations

import json
from typing import Any

from printcloud.protocol.constants import JOB
from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.v1 import devices_pb2, jobs_pb2


class WireError(ValueError):
    """A message that breaks protocol v1; the agent is closed with 4400."""


def _text(value: dict[str, Any], key: str, *, default: str | None = None) -> str:
    found = value.get(key, default)
    if not isinstance(found, str):
        raise WireError(f"{key} must be a string")
    return found


def _object(value: dict[str, Any], key: str) -> dict[str, Any]:
    found = value.get(key) or {}
    if not isinstance(found, dict):
        raise WireError(f"{key} must be an object")
    return found


def computer_report(value: Any) -> devices_pb2.ComputerReport:
    if not isinstance(value, dict):
        raise WireError("computer must be an object")
    return devices_pb2.ComputerReport(
        hostname=_text(value, "hostname"),
        os=_text(value, "os"),
        os_version=_text(value, "osVersion", default=""),
        arch=_text(value, "arch", default=""),
        agent_version=_text(value, "agentVersion", default=""),
    )


def _capabilities(item: dict[str, Any], limits: AgentLimits) -> str:
    encoded = json.dumps(_object(item, "capabilities"))
    if len(encoded) > limits.max_capabilities_bytes:
        raise WireError(f"a printer's capabilities exceed {limits.max_capabilities_bytes} bytes")
    return encoded


def printer_reports(value: Any, limits: AgentLimits) -> list[devices_pb2.PrinterReport]:
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise WireError("printers must be an array of objects")
    if len(value) > limits.max_printers:
        raise WireError(f"a computer reports at most {limits.max_printers} printers")
    return [
        devices_pb2.PrinterReport(
            name=_text(item, "name"),
            os_name=_text(item, "osName", default=""),
            description=_text(item, "description", default=""),
            is_default=bool(item.get("isDefault", False)),
            state=_text(item, "state", default="online"),
            state_detail=_text(item, "stateDetail", default=""),
            capabilities_json=_capabilities(item, limits),
            default_options_json=json.dumps(_object(item, "defaultOptions")),
        )
        for item in value
    ]


def job_message(delivery: jobs_pb2.JobDelivery, download_path: str, traceparent: str = "") -> dict[str, Any]:
    """`traceparent` (W3C trace context), when set, lets the agent tie its download and its reports
    to the job's trace (PROTOCOL.md); agents that do not know it ignore it."""
    message: dict[str, Any] = {
        "type": JOB,
        "jobId": delivery.job_id,
        "printerId": delivery.printer_id,
        "printerName": delivery.printer_name,
        "title": delivery.title,
        "contentType": delivery.content_type,
        "qty": delivery.qty,
        "options": json.loads(delivery.options_json or "{}"),
        "fileSha256": delivery.file_sha256,
        "fileSize": delivery.file_size,
        "downloadPath": download_path,
    }
    if delivery.HasField("custom_paper"):
        paper = delivery.custom_paper
        message["customPaper"] = {"name": paper.name, "width": paper.width, "height": paper.height}
    if traceparent:
        message["traceparent"] = traceparent
    return message
