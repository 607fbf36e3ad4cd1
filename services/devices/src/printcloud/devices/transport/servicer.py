"""The `printcloud.v1.Devices` gRPC service: requests to use-case calls and rows to messages."""

from __future__ import annotations

from printcloud.contracts import representations
from printcloud.core.db.paging import PageRequest, page_info_to_proto
from printcloud.core.ids import resource_id
from printcloud.core.rpc import ServicerContext
from printcloud.core.rpc.batches import at_most_per_call, each_in_order
from printcloud.core.scope import scope_from_proto
from printcloud.devices.domain.computer_settings import checked_name
from printcloud.devices.transport.mapping import (
    agent_identity,
    agent_identity_outcome,
    agent_outcome,
    computer_report_from_proto,
    computer_to_proto,
    printer_reports_from_proto,
    printer_settings_from_proto,
    printer_to_proto,
)
from printcloud.devices.transport.pairing_servicer import PairingServicer
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.devices.use_cases.agents import AgentGoodbye, AgentHello
from printcloud.devices.use_cases.pairing import PairingCodes
from printcloud.devices.use_cases.state_changes import COMPUTER, PRINTER
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc


class DevicesServicer(PairingServicer, devices_pb2_grpc.DevicesServicer):
    def __init__(self, devices: DeviceUseCases, pairing: PairingCodes | None = None) -> None:
        self.devices = devices
        self.pairing = pairing

    async def ListComputers(
        self, request: devices_pb2.ListComputersRequest, context: ServicerContext
    ) -> devices_pb2.ComputerPage:
        page = await self.devices.computers.list_computers(
            scope_from_proto(request.scope), PageRequest.from_proto(request.page)
        )
        return devices_pb2.ComputerPage(items=[computer_to_proto(r) for r in page.items], page=page_info_to_proto(page))

    async def GetComputer(
        self, request: devices_pb2.GetComputerRequest, context: ServicerContext
    ) -> devices_pb2.Computer:
        row = await self.devices.computers.get_computer(
            scope_from_proto(request.scope), resource_id(request.id, COMPUTER)
        )
        return computer_to_proto(row)

    async def ListPrinters(
        self, request: devices_pb2.ListPrintersRequest, context: ServicerContext
    ) -> devices_pb2.PrinterPage:
        scope = scope_from_proto(request.scope)
        page_request = PageRequest.from_proto(request.page)
        computer_id = resource_id(request.computer_id, COMPUTER) if request.HasField("computer_id") else None
        page = await self.devices.printers.list_printers(scope, page_request, computer_id)
        items = [printer_to_proto(r) for r in page.items]
        info = page_info_to_proto(page)
        if request.rendered:
            shown = representations.page(items, info, representations.printer)
            return devices_pb2.PrinterPage(representation=representations.representation(shown))
        return devices_pb2.PrinterPage(items=items, page=info)

    async def GetPrinter(self, request: devices_pb2.GetPrinterRequest, context: ServicerContext) -> devices_pb2.Printer:
        row = await self.devices.printers.get_printer(scope_from_proto(request.scope), resource_id(request.id, PRINTER))
        return printer_to_proto(row)

    async def EnrollComputer(
        self, request: devices_pb2.EnrollComputerRequest, context: ServicerContext
    ) -> devices_pb2.EnrollComputerResponse:
        scope = scope_from_proto(request.scope)
        computer, credential = await self.devices.computers.enroll_computer(scope, request.name, request.hostname)
        return devices_pb2.EnrollComputerResponse(computer=computer_to_proto(computer), agent_credential=credential)

    async def AuthenticateAgent(
        self, request: devices_pb2.AuthenticateAgentRequest, context: ServicerContext
    ) -> devices_pb2.AgentIdentity:
        return agent_identity(await self.devices.credentials.authenticate_agent(request.agent_credential))

    async def AuthenticateAgents(
        self, request: devices_pb2.AuthenticateAgentsRequest, context: ServicerContext
    ) -> devices_pb2.AgentIdentities:
        at_most_per_call(request.agents, "agents")
        answers = await self.devices.credentials.authenticate_agents([a.agent_credential for a in request.agents])
        return devices_pb2.AgentIdentities(outcomes=[agent_identity_outcome(answer) for answer in answers])

    async def AgentConnected(
        self, request: devices_pb2.AgentConnectedRequest, context: ServicerContext
    ) -> devices_pb2.Computer:
        row = await self.devices.agents.agent_connected(_agent_hello(request))
        return computer_to_proto(row)

    async def AgentsConnected(
        self, request: devices_pb2.AgentsConnectedRequest, context: ServicerContext
    ) -> devices_pb2.AgentOutcomes:
        answers = await each_in_order(request.agents, "agents", _agent_hello, self.devices.agents.agents_connected)
        return devices_pb2.AgentOutcomes(outcomes=[agent_outcome(answer) for answer in answers])

    async def AgentSeen(self, request: devices_pb2.AgentSeenRequest, context: ServicerContext) -> common_pb2.Empty:
        await self.devices.agents.agents_seen(
            [resource_id(computer_id, COMPUTER) for computer_id in request.computer_ids]
        )
        return common_pb2.Empty()

    async def AgentDisconnected(
        self, request: devices_pb2.AgentDisconnectedRequest, context: ServicerContext
    ) -> common_pb2.Empty:
        await self.devices.agents.agent_disconnected(
            resource_id(request.computer_id, COMPUTER), request.gateway_instance
        )
        return common_pb2.Empty()

    async def AgentsDisconnected(
        self, request: devices_pb2.AgentsDisconnectedRequest, context: ServicerContext
    ) -> devices_pb2.AgentOutcomes:
        answers = await each_in_order(request.agents, "agents", _agent_goodbye, self.devices.agents.agents_disconnected)
        return devices_pb2.AgentOutcomes(outcomes=[agent_outcome(answer) for answer in answers])

    async def ReportPrinters(
        self, request: devices_pb2.ReportPrintersRequest, context: ServicerContext
    ) -> devices_pb2.PrinterList:
        computer_id = resource_id(request.computer_id, COMPUTER)
        rows = await self.devices.agents.report_printers(computer_id, printer_reports_from_proto(request.printers))
        return devices_pb2.PrinterList(items=[printer_to_proto(r) for r in rows])

    async def UpdateComputer(
        self, request: devices_pb2.UpdateComputerRequest, context: ServicerContext
    ) -> devices_pb2.Computer:
        scope = scope_from_proto(request.scope)
        computer_id = resource_id(request.id, COMPUTER)
        name = checked_name(request.name) if request.HasField("name") else None
        enabled = request.enabled if request.HasField("enabled") else None
        return computer_to_proto(await self.devices.computers.update_computer(scope, computer_id, name, enabled))

    async def DeleteComputer(
        self, request: devices_pb2.DeleteComputerRequest, context: ServicerContext
    ) -> common_pb2.Empty:
        await self.devices.computers.delete_computer(scope_from_proto(request.scope), resource_id(request.id, COMPUTER))
        return common_pb2.Empty()

    async def UpdatePrinter(
        self, request: devices_pb2.UpdatePrinterRequest, context: ServicerContext
    ) -> devices_pb2.Printer:
        scope = scope_from_proto(request.scope)
        printer_id = resource_id(request.id, PRINTER)
        row = await self.devices.printers.update_printer(scope, printer_id, printer_settings_from_proto(request))
        return printer_to_proto(row)

    async def GatewayHeartbeat(
        self, request: devices_pb2.GatewayHeartbeatRequest, context: ServicerContext
    ) -> devices_pb2.GatewayHeartbeatResponse:
        known = await self.devices.gateways.record_gateway_heartbeat(request.gateway_instance)
        return devices_pb2.GatewayHeartbeatResponse(known=known)

    async def ListVirtualComputers(
        self, request: devices_pb2.ListVirtualComputersRequest, context: ServicerContext
    ) -> devices_pb2.ComputerList:
        rows = await self.devices.virtual_computers.list_virtual_computers()
        return devices_pb2.ComputerList(items=[computer_to_proto(r) for r in rows])

    async def IssueVirtualAgentCredential(
        self, request: devices_pb2.IssueVirtualAgentCredentialRequest, context: ServicerContext
    ) -> devices_pb2.VirtualAgentCredential:
        credential = await self.devices.virtual_computers.issue_virtual_agent_credential(
            resource_id(request.computer_id, COMPUTER)
        )
        return devices_pb2.VirtualAgentCredential(agent_credential=credential)


def _agent_hello(request: devices_pb2.AgentConnectedRequest) -> AgentHello:
    return AgentHello(
        resource_id(request.computer_id, COMPUTER),
        computer_report_from_proto(request.computer),
        printer_reports_from_proto(request.printers),
        request.gateway_instance,
    )


def _agent_goodbye(request: devices_pb2.AgentDisconnectedRequest) -> AgentGoodbye:
    return AgentGoodbye(resource_id(request.computer_id, COMPUTER), request.gateway_instance)
