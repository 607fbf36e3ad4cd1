"""The devices service, as the agent-gateway's use cases call it (`use_cases.agents.Devices`)."""

from __future__ import annotations

from collections.abc import Sequence

from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.agent_gateway.transport.mapping import computer_report, printer_reports
from printcloud.agent_gateway.use_cases.agents import AgentIdentity
from printcloud.core import rpc
from printcloud.protocol.messages import Hello, PrinterReport
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc


class DevicesClient:
    def __init__(self, stub: devices_pb2_grpc.DevicesStub) -> None:
        self.stub = stub

    async def authenticate_agent(self, credential: str) -> AgentIdentity:
        request = devices_pb2.AuthenticateAgentRequest(agent_credential=credential)
        identity: devices_pb2.AgentIdentity = await rpc.call(self.stub.AuthenticateAgent, request)
        computer = ComputerScope(identity.computer_id, identity.organization_id, identity.mode)
        return AgentIdentity(computer, identity.disabled)

    async def agent_connected(self, computer_id: str, hello: Hello, gateway_instance: str) -> None:
        request = devices_pb2.AgentConnectedRequest(
            computer_id=computer_id,
            computer=computer_report(hello.computer),
            printers=printer_reports(hello.printers),
            gateway_instance=gateway_instance,
        )
        await rpc.call(self.stub.AgentConnected, request)

    async def agents_seen(self, computer_ids: Sequence[str]) -> None:
        await rpc.call(self.stub.AgentSeen, devices_pb2.AgentSeenRequest(computer_ids=computer_ids))

    async def agent_disconnected(self, computer_id: str, gateway_instance: str) -> None:
        request = devices_pb2.AgentDisconnectedRequest(computer_id=computer_id, gateway_instance=gateway_instance)
        await rpc.call(self.stub.AgentDisconnected, request)

    async def report_printers(self, computer_id: str, printers: list[PrinterReport]) -> None:
        request = devices_pb2.ReportPrintersRequest(computer_id=computer_id, printers=printer_reports(printers))
        await rpc.call(self.stub.ReportPrinters, request)

    async def computer_state(self, computer: ComputerScope) -> str:
        scope = common_pb2.Scope(organization_id=computer.organization_id, mode=computer.mode)
        request = devices_pb2.GetComputerRequest(scope=scope, id=computer.computer_id)
        found: devices_pb2.Computer = await rpc.call(self.stub.GetComputer, request)
        return found.state

    async def gateway_heartbeat(self, gateway_instance: str) -> bool:
        request = devices_pb2.GatewayHeartbeatRequest(gateway_instance=gateway_instance)
        answer: devices_pb2.GatewayHeartbeatResponse = await rpc.call(self.stub.GatewayHeartbeat, request)
        return answer.known
