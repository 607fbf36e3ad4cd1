"""The devices service in memory: computers, printers and agent credentials per organization and mode."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.ids import new_id
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc
from tests.support.fakes.paging import page_of
from tests.support.fakes.recorder import Recorder

NOW = "2030-01-01T00:00:00.000Z"


def _scope(scope: common_pb2.Scope) -> tuple[str, str]:
    return scope.organization_id, scope.mode


class FakeDevices(devices_pb2_grpc.DevicesServicer):
    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder or Recorder()
        self.computers: dict[str, devices_pb2.Computer] = {}
        self.printers: dict[str, devices_pb2.Printer] = {}
        self.credentials: dict[str, str] = {}  # agent credential → computer id
        self.live_gateways: set[str] = set()

    @property
    def requests(self) -> list[Any]:
        return self.recorder.requests

    def add_computer(self, organization_id: str, mode: str, **fields: Any) -> devices_pb2.Computer:
        shown = {"name": "Office PC", "hostname": "office", "state": "online", "os": "linux", "created_at": NOW}
        shown["id"] = new_id()
        computer = devices_pb2.Computer(organization_id=organization_id, mode=mode, **{**shown, **fields})
        self.computers[computer.id] = computer
        return computer

    def add_printer(self, computer: devices_pb2.Computer, **fields: Any) -> devices_pb2.Printer:
        shown = {
            "name": "laser", "display_name": "Laser", "enabled": True, "state": "online",
            "capabilities_json": '{"duplex": true}', "default_options_json": '{"copies": 1}',
            "created_at": NOW, "updated_at": NOW, "id": new_id(),
        }  # fmt: skip
        printer = devices_pb2.Printer(
            organization_id=computer.organization_id, computer_id=computer.id, mode=computer.mode,
            **{**shown, **fields},
        )  # fmt: skip
        self.printers[printer.id] = printer
        return printer

    def add_agent(self, credential: str, computer: devices_pb2.Computer) -> None:
        self.credentials[credential] = computer.id

    def forget_gateway(self, instance: str) -> None:
        """As devices' sweep does to a replica that stopped heartbeating."""
        self.live_gateways.discard(instance)

    def _computer(self, computer_id: str, scope: common_pb2.Scope | None = None) -> devices_pb2.Computer:
        computer = self.computers.get(computer_id)
        if computer is None or (scope is not None and (computer.organization_id, computer.mode) != _scope(scope)):
            raise not_found("computer")
        return computer

    def _printer(self, printer_id: str, scope: common_pb2.Scope) -> devices_pb2.Printer:
        printer = self.printers.get(printer_id)
        if printer is None or (printer.organization_id, printer.mode) != _scope(scope):
            raise not_found("printer")
        return printer

    def _in_scope(self, items: dict[str, Any], scope: common_pb2.Scope) -> list[Any]:
        return [item for item in items.values() if (item.organization_id, item.mode) == _scope(scope)]

    async def ListComputers(self, request: devices_pb2.ListComputersRequest, context: Any) -> Any:
        self.recorder.add("ListComputers", request, context)
        items, info = page_of(self._in_scope(self.computers, request.scope), request.page)
        return devices_pb2.ComputerPage(items=items, page=info)

    async def GetComputer(self, request: devices_pb2.GetComputerRequest, context: Any) -> Any:
        self.recorder.add("GetComputer", request, context)
        return self._computer(request.id, request.scope)

    async def ListPrinters(self, request: devices_pb2.ListPrintersRequest, context: Any) -> Any:
        self.recorder.add("ListPrinters", request, context)
        printers = self._in_scope(self.printers, request.scope)
        if request.HasField("computer_id"):
            self._computer(request.computer_id, request.scope)
            printers = [p for p in printers if p.computer_id == request.computer_id]
        items, info = page_of(printers, request.page)
        if request.rendered:
            shown = representations.page(items, info, representations.printer)
            return devices_pb2.PrinterPage(representation=representations.representation(shown))
        return devices_pb2.PrinterPage(items=items, page=info)

    async def GetPrinter(self, request: devices_pb2.GetPrinterRequest, context: Any) -> Any:
        self.recorder.add("GetPrinter", request, context)
        return self._printer(request.id, request.scope)

    async def EnrollComputer(self, request: devices_pb2.EnrollComputerRequest, context: Any) -> Any:
        self.recorder.add("EnrollComputer", request, context)
        computer = self.add_computer(
            request.scope.organization_id, request.scope.mode, name=request.name or request.hostname,
            hostname=request.hostname, state="offline",
        )  # fmt: skip
        credential = f"agc_{new_id()}"
        self.add_agent(credential, computer)
        return devices_pb2.EnrollComputerResponse(computer=computer, agent_credential=credential)

    async def UpdateComputer(self, request: devices_pb2.UpdateComputerRequest, context: Any) -> Any:
        self.recorder.add("UpdateComputer", request, context)
        computer = self._computer(request.id, request.scope)
        if request.HasField("name"):
            computer.name = request.name
        if request.HasField("enabled"):
            # Re-enabled, it is offline until its agent's next connection says otherwise.
            computer.state = "offline" if request.enabled else "disabled"
        return computer

    async def DeleteComputer(self, request: devices_pb2.DeleteComputerRequest, context: Any) -> Any:
        self.recorder.add("DeleteComputer", request, context)
        computer = self._computer(request.id, request.scope)
        if computer.is_virtual:
            raise ApiError("conflict", "The test-mode virtual computer cannot be deleted.")
        del self.computers[computer.id]
        self.printers = {key: p for key, p in self.printers.items() if p.computer_id != computer.id}
        return common_pb2.Empty()

    async def UpdatePrinter(self, request: devices_pb2.UpdatePrinterRequest, context: Any) -> Any:
        self.recorder.add("UpdatePrinter", request, context)
        printer = self._printer(request.id, request.scope)
        for name in ("default_options_json", "display_name", "enabled", "remarks"):
            if request.HasField(name):
                setattr(printer, name, getattr(request, name))
        if request.clear_remarks:
            printer.ClearField("remarks")
        if request.HasField("custom_papers"):
            del printer.custom_papers[:]
            printer.custom_papers.extend(request.custom_papers.items)
        return printer

    async def AuthenticateAgent(self, request: devices_pb2.AuthenticateAgentRequest, context: Any) -> Any:
        self.recorder.add("AuthenticateAgent", request, context)
        computer = self.computers.get(self.credentials.get(request.agent_credential, ""))
        if computer is None:
            raise ApiError("unauthorized", "The agent credential is not valid.")
        return devices_pb2.AgentIdentity(
            computer_id=computer.id, organization_id=computer.organization_id, mode=computer.mode,
            disabled=computer.state == "disabled",
        )  # fmt: skip

    async def AuthenticateAgents(self, request: devices_pb2.AuthenticateAgentsRequest, context: Any) -> Any:
        """Each credential as `AuthenticateAgent` takes it (recorded and failed by that name)."""
        self.recorder.add("AuthenticateAgents", request, context)
        outcomes = []
        for credential in request.agents:
            try:
                identity = await self.AuthenticateAgent(credential, None)
            except ApiError as refused:
                outcomes.append(
                    devices_pb2.AgentIdentityOutcome(error_code=refused.code, error_message=refused.message)
                )
            else:
                outcomes.append(devices_pb2.AgentIdentityOutcome(identity=identity))
        return devices_pb2.AgentIdentities(outcomes=outcomes)

    async def AgentConnected(self, request: devices_pb2.AgentConnectedRequest, context: Any) -> Any:
        self.recorder.add("AgentConnected", request, context)
        computer = self._computer(request.computer_id)
        if computer.state != "disabled":
            computer.state = "online"
        return computer

    async def AgentSeen(self, request: devices_pb2.AgentSeenRequest, context: Any) -> Any:
        self.recorder.add("AgentSeen", request, context)
        return common_pb2.Empty()

    async def AgentDisconnected(self, request: devices_pb2.AgentDisconnectedRequest, context: Any) -> Any:
        self.recorder.add("AgentDisconnected", request, context)
        computer = self._computer(request.computer_id)
        if computer.state == "online":
            computer.state = "offline"
        return common_pb2.Empty()

    async def AgentsConnected(self, request: devices_pb2.AgentsConnectedRequest, context: Any) -> Any:
        """Each agent as `AgentConnected` takes it (recorded and failed by that name)."""
        self.recorder.add("AgentsConnected", request, context)
        outcomes = [await _outcome(self.AgentConnected(a, None)) for a in request.agents]
        return devices_pb2.AgentOutcomes(outcomes=outcomes)

    async def AgentsDisconnected(self, request: devices_pb2.AgentsDisconnectedRequest, context: Any) -> Any:
        """Each agent as `AgentDisconnected` takes it (recorded and failed by that name)."""
        self.recorder.add("AgentsDisconnected", request, context)
        outcomes = [await _outcome(self.AgentDisconnected(a, None)) for a in request.agents]
        return devices_pb2.AgentOutcomes(outcomes=outcomes)

    async def ReportPrinters(self, request: devices_pb2.ReportPrintersRequest, context: Any) -> Any:
        self.recorder.add("ReportPrinters", request, context)
        computer = self._computer(request.computer_id)
        return devices_pb2.PrinterList(items=[p for p in self.printers.values() if p.computer_id == computer.id])

    async def GatewayHeartbeat(self, request: devices_pb2.GatewayHeartbeatRequest, context: Any) -> Any:
        self.recorder.add("GatewayHeartbeat", request, context)
        known = request.gateway_instance in self.live_gateways
        self.live_gateways.add(request.gateway_instance)
        return devices_pb2.GatewayHeartbeatResponse(known=known)


async def _outcome(call: Awaitable[Any]) -> devices_pb2.AgentOutcome:
    try:
        await call
    except ApiError as refused:
        return devices_pb2.AgentOutcome(error_code=refused.code, error_message=refused.message)
    return devices_pb2.AgentOutcome()
