"""Conversions between gRPC messages and the rows and domain values of the use cases."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from printcloud.contracts.errors import ApiError, invalid
from printcloud.core.timeutil import isoformat, isoformat_or_none
from printcloud.devices.domain.printer_settings import DEFAULT_OPTIONS, PrinterSettings
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.virtual_computer import printer_os
from printcloud.devices.persistence.rows import AgentRow, ComputerRow, PrinterRow
from printcloud.v1 import devices_pb2


def computer_to_proto(row: ComputerRow) -> devices_pb2.Computer:
    return devices_pb2.Computer(
        id=str(row.id),
        organization_id=str(row.organization_id),
        name=row.name,
        hostname=row.hostname,
        os=row.os,
        os_version=row.os_version,
        arch=row.arch,
        agent_version=row.agent_version,
        mode=row.mode,
        state=row.state,
        created_at=isoformat(row.created_at),
        last_seen_at=isoformat_or_none(row.last_seen_at),
        is_virtual=row.is_virtual,
    )


def agent_identity(row: AgentRow) -> devices_pb2.AgentIdentity:
    return devices_pb2.AgentIdentity(
        computer_id=str(row.computer_id),
        organization_id=str(row.organization_id),
        mode=row.mode,
        disabled=row.disabled,
    )


def agent_identity_outcome(answer: AgentRow | ApiError) -> devices_pb2.AgentIdentityOutcome:
    if isinstance(answer, ApiError):
        return devices_pb2.AgentIdentityOutcome(error_code=answer.code, error_message=answer.message)
    return devices_pb2.AgentIdentityOutcome(identity=agent_identity(answer))


def agent_outcome(answer: ComputerRow | bool | ApiError) -> devices_pb2.AgentOutcome:
    """A batched agent's outcome: its refusal, or nothing when it was recorded."""
    if isinstance(answer, ApiError):
        return devices_pb2.AgentOutcome(error_code=answer.code, error_message=answer.message)
    return devices_pb2.AgentOutcome()


def printer_to_proto(row: PrinterRow) -> devices_pb2.Printer:
    return devices_pb2.Printer(
        id=str(row.id),
        organization_id=str(row.organization_id),
        computer_id=str(row.computer_id),
        name=row.name,
        os_name=row.os_name,
        description=row.description,
        display_name=row.display_name,
        remarks=row.remarks,
        enabled=row.enabled,
        is_default=row.is_default,
        state=row.state,
        state_detail=row.state_detail,
        state_reasons=row.state_reasons,
        capabilities_json=json.dumps(row.capabilities),
        default_options_json=json.dumps(row.default_options),
        custom_papers=[devices_pb2.CustomPaper(**paper) for paper in row.custom_papers],
        created_at=isoformat(row.created_at),
        updated_at=isoformat(row.updated_at),
        mode=row.mode,
        computer_os=printer_os(row.computer_os, row.computer_is_virtual, row.name),
    )


def _json_object(value: str, what: str) -> dict[str, Any]:
    if not value:
        return {}
    try:
        parsed = json.loads(value)
    except ValueError:
        raise invalid(f"{what} must be a JSON object.") from None
    if not isinstance(parsed, dict):
        raise invalid(f"{what} must be a JSON object.")
    return parsed


def computer_report_from_proto(report: devices_pb2.ComputerReport) -> ReportedComputer:
    return ReportedComputer(
        hostname=report.hostname,
        os=report.os,
        os_version=report.os_version,
        arch=report.arch,
        agent_version=report.agent_version,
    )


def printer_reports_from_proto(reports: Iterable[devices_pb2.PrinterReport]) -> list[ReportedPrinter]:
    return [
        ReportedPrinter(
            name=r.name,
            os_name=r.os_name,
            description=r.description,
            is_default=r.is_default,
            state=r.state,
            state_detail=r.state_detail,
            state_reasons=list(r.state_reasons),
            capabilities=_json_object(r.capabilities_json, f"Capabilities of printer {r.name!r}"),
            default_options=_json_object(r.default_options_json, f"Default options of printer {r.name!r}"),
        )
        for r in reports
    ]


def printer_settings_from_proto(request: devices_pb2.UpdatePrinterRequest) -> PrinterSettings:
    default_options: Any = None
    if request.HasField("default_options_json"):
        try:
            default_options = json.loads(request.default_options_json)
        except ValueError:
            raise invalid(f"`{DEFAULT_OPTIONS}` must be a JSON object.") from None
    papers = None
    if request.HasField("custom_papers"):
        papers = [{"name": p.name, "width": p.width, "height": p.height} for p in request.custom_papers.items]
    return PrinterSettings(
        default_options=default_options,
        custom_papers=papers,
        display_name=request.display_name if request.HasField("display_name") else None,
        enabled=request.enabled if request.HasField("enabled") else None,
        remarks=request.remarks if request.HasField("remarks") else None,
        clear_remarks=request.clear_remarks,
    )
