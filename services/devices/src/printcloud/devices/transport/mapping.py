"""Conversions between gRPC messages and the repository's rows and domain values."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from typing import Any

from printcloud.core.errors import invalid, not_found
from printcloud.core.ids import parse_uuid
from printcloud.core.paging import Page, PageRequest, page_info_fields
from printcloud.core.scope import Scope, parse_scope
from printcloud.core.timeutil import isoformat, isoformat_or_none
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.virtual_computer import printer_os
from printcloud.v1 import common_pb2, devices_pb2


def scope_from_proto(scope: common_pb2.Scope) -> Scope:
    return parse_scope(scope.organization_id, scope.mode)


def page_request_from_proto(page: common_pb2.PageRequest) -> PageRequest:
    try:
        return PageRequest.from_proto(page)
    except ValueError:
        raise invalid("`after` must be the `nextCursor` of a previous page.") from None


def resource_id(value: str, what: str) -> uuid.UUID:
    """An id from a path: one that is not a UUID cannot name anything, hence 404."""
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return parsed


def page_info(page: Page[Any]) -> common_pb2.PageInfo:
    return common_pb2.PageInfo(**page_info_fields(page))


def computer_to_proto(row: Any) -> devices_pb2.Computer:
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


def printer_to_proto(row: Any) -> devices_pb2.Printer:
    """`row` is a printer with its computer's `computer_os` and `computer_is_virtual`."""
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
            capabilities=_json_object(r.capabilities_json, f"Capabilities of printer {r.name!r}"),
            default_options=_json_object(r.default_options_json, f"Default options of printer {r.name!r}"),
        )
        for r in reports
    ]
