"""The `printcloud.v1.Devices` gRPC service: parses requests, calls the repository, maps rows."""

from __future__ import annotations

import json
from typing import Any

import grpc

from printcloud.core.db import Database
from printcloud.core.errors import invalid
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.computer_settings import MAX_COMPUTER_NAME_LENGTH, checked_name
from printcloud.devices.domain.printer_settings import PrinterSettings
from printcloud.devices.persistence import repository
from printcloud.devices.transport.mapping import (
    computer_report_from_proto,
    computer_to_proto,
    page_info,
    page_request_from_proto,
    printer_reports_from_proto,
    printer_to_proto,
    resource_id,
    scope_from_proto,
)
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc


def _printer_settings(request: devices_pb2.UpdatePrinterRequest) -> PrinterSettings:
    default_options: Any = None
    if request.HasField("default_options_json"):
        try:
            default_options = json.loads(request.default_options_json)
        except ValueError:
            raise invalid("`defaultOptions` must be a JSON object.") from None
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


class DevicesServicer(devices_pb2_grpc.DevicesServicer):
    def __init__(self, db: Database) -> None:
        self.db = db

    async def ListComputers(
        self, request: devices_pb2.ListComputersRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.ComputerPage:
        scope = scope_from_proto(request.scope)
        page_request = page_request_from_proto(request.page)
        async with self.db.read() as session:
            page = await repository.list_computers(session, scope, page_request)
        return devices_pb2.ComputerPage(items=[computer_to_proto(r) for r in page.items], page=page_info(page))

    async def GetComputer(
        self, request: devices_pb2.GetComputerRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.Computer:
        scope = scope_from_proto(request.scope)
        async with self.db.read() as session:
            row = await repository.get_computer(session, scope, resource_id(request.id, "computer"))
        return computer_to_proto(row)

    async def ListPrinters(
        self, request: devices_pb2.ListPrintersRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.PrinterPage:
        scope = scope_from_proto(request.scope)
        page_request = page_request_from_proto(request.page)
        computer_id = resource_id(request.computer_id, "computer") if request.HasField("computer_id") else None
        async with self.db.read() as session:
            page = await repository.list_printers(session, scope, page_request, computer_id)
        return devices_pb2.PrinterPage(items=[printer_to_proto(r) for r in page.items], page=page_info(page))

    async def GetPrinter(
        self, request: devices_pb2.GetPrinterRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.Printer:
        scope = scope_from_proto(request.scope)
        async with self.db.read() as session:
            row = await repository.get_printer(session, scope, resource_id(request.id, "printer"))
        return printer_to_proto(row)

    async def EnrollComputer(
        self, request: devices_pb2.EnrollComputerRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.EnrollComputerResponse:
        scope = scope_from_proto(request.scope)
        name, hostname = request.name.strip(), request.hostname.strip()
        if not (name or hostname):
            raise invalid("A computer needs a name or a hostname.")
        if len(name) > MAX_COMPUTER_NAME_LENGTH or len(hostname) > MAX_COMPUTER_NAME_LENGTH:
            raise invalid(f"A computer's name and hostname have at most {MAX_COMPUTER_NAME_LENGTH} characters.")
        async with self.db.transaction() as session:
            computer, credential = await repository.enroll_computer(session, scope, name, hostname)
        return devices_pb2.EnrollComputerResponse(computer=computer_to_proto(computer), agent_credential=credential)

    async def AuthenticateAgent(
        self, request: devices_pb2.AuthenticateAgentRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.AgentIdentity:
        async with self.db.read() as session:
            identity = await repository.authenticate_agent(session, request.agent_credential)
        return devices_pb2.AgentIdentity(
            computer_id=str(identity.computer_id),
            organization_id=str(identity.organization_id),
            mode=identity.mode,
            disabled=identity.disabled,
        )

    async def AgentConnected(
        self, request: devices_pb2.AgentConnectedRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.Computer:
        computer_id = resource_id(request.computer_id, "computer")
        report = computer_report_from_proto(request.computer)
        printers = printer_reports_from_proto(request.printers)
        async with self.db.transaction() as session:
            row = await repository.agent_connected(session, computer_id, report, printers, request.gateway_instance)
        return computer_to_proto(row)

    async def AgentSeen(
        self, request: devices_pb2.AgentSeenRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.Empty:
        async with self.db.transaction() as session:
            await repository.agent_seen(session, resource_id(request.computer_id, "computer"))
        return common_pb2.Empty()

    async def AgentDisconnected(
        self, request: devices_pb2.AgentDisconnectedRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.Empty:
        computer_id = resource_id(request.computer_id, "computer")
        async with self.db.transaction() as session:
            await repository.agent_disconnected(session, computer_id, request.gateway_instance)
        return common_pb2.Empty()

    async def ReportPrinters(
        self, request: devices_pb2.ReportPrintersRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.PrinterList:
        computer_id = resource_id(request.computer_id, "computer")
        printers = printer_reports_from_proto(request.printers)
        async with self.db.transaction() as session:
            rows = await repository.report_printers(session, computer_id, printers)
        return devices_pb2.PrinterList(items=[printer_to_proto(r) for r in rows])

    async def UpdateComputer(
        self, request: devices_pb2.UpdateComputerRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.Computer:
        scope = scope_from_proto(request.scope)
        computer_id = resource_id(request.id, "computer")
        name = checked_name(request.name) if request.HasField("name") else None
        enabled = request.enabled if request.HasField("enabled") else None
        async with self.db.transaction() as session:
            row = await repository.update_computer(session, scope, computer_id, name, enabled)
        return computer_to_proto(row)

    async def DeleteComputer(
        self, request: devices_pb2.DeleteComputerRequest, context: grpc.aio.ServicerContext
    ) -> common_pb2.Empty:
        scope = scope_from_proto(request.scope)
        computer_id = resource_id(request.id, "computer")
        async with self.db.transaction() as session:
            await repository.delete_computer(session, scope, computer_id)
        return common_pb2.Empty()

    async def UpdatePrinter(
        self, request: devices_pb2.UpdatePrinterRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.Printer:
        scope = scope_from_proto(request.scope)
        printer_id = resource_id(request.id, "printer")
        settings = _printer_settings(request)
        async with self.db.transaction() as session:
            row = await repository.update_printer(session, scope, printer_id, settings)
        return printer_to_proto(row)

    async def GatewayHeartbeat(
        self, request: devices_pb2.GatewayHeartbeatRequest, context: grpc.aio.ServicerContext
    ) -> devices_pb2.GatewayHeartbeatResponse:
        if not request.gateway_instance:
            raise invalid("`gateway_instance` is required.")
        async with self.db.transaction() as session:
            known = await repository.record_gateway_heartbeat(session, request.gateway_instance, utcnow())
        return devices_pb2.GatewayHeartbeatResponse(known=known)
