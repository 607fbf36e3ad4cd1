"""The devices service, as the agent-gateway's use cases call it (`use_cases.agents.Devices`)."""

from __future__ import annotations

from collections.abc import Sequence

from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.agent_gateway.transport.batched_calls import BatchedCalls, refusal
from printcloud.agent_gateway.transport.mapping import computer_report, printer_reports
from printcloud.agent_gateway.use_cases.agents import AgentIdentity
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.rpc.channels import DEFAULT_TIMEOUT_SECONDS
from printcloud.protocol.messages import Hello, PrinterReport
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc


class DevicesClient:
    def __init__(self, stub: devices_pb2_grpc.DevicesStub) -> None:
        self.stub = stub
        # A reconnect storm's credentials and hellos, and the goodbyes of the outage before it, go
        # in batches.
        self.credentials: BatchedCalls[devices_pb2.AuthenticateAgentRequest, devices_pb2.AgentIdentity] = BatchedCalls(
            "AuthenticateAgents", self._credential_batch, self._credential_one
        )
        self.hellos: BatchedCalls[devices_pb2.AgentConnectedRequest, None] = BatchedCalls(
            "AgentsConnected", self._hello_batch, self._hello_one
        )
        self.goodbyes: BatchedCalls[devices_pb2.AgentDisconnectedRequest, None] = BatchedCalls(
            "AgentsDisconnected", self._goodbye_batch, self._goodbye_one
        )

    async def authenticate_agent(self, credential: str) -> AgentIdentity:
        request = devices_pb2.AuthenticateAgentRequest(agent_credential=credential)
        identity = await self.credentials.call(request)
        computer = ComputerScope(identity.computer_id, identity.organization_id, identity.mode)
        return AgentIdentity(computer, identity.disabled)

    async def agent_connected(self, computer_id: str, hello: Hello, gateway_instance: str) -> None:
        request = devices_pb2.AgentConnectedRequest(
            computer_id=computer_id,
            computer=computer_report(hello.computer),
            printers=printer_reports(hello.printers),
            gateway_instance=gateway_instance,
        )
        await self.hellos.call(request)

    async def agents_seen(self, computer_ids: Sequence[str]) -> None:
        await rpc.call(self.stub.AgentSeen, devices_pb2.AgentSeenRequest(computer_ids=computer_ids))

    async def agent_disconnected(self, computer_id: str, gateway_instance: str) -> None:
        request = devices_pb2.AgentDisconnectedRequest(computer_id=computer_id, gateway_instance=gateway_instance)
        await self.goodbyes.call(request)

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

    # --- the calls that batches make ---------------------------------------------------------

    async def _credential_batch(
        self, credentials: list[devices_pb2.AuthenticateAgentRequest]
    ) -> list[devices_pb2.AgentIdentity | ApiError]:
        answer: devices_pb2.AgentIdentities = await self.stub.AuthenticateAgents(
            devices_pb2.AuthenticateAgentsRequest(agents=credentials), timeout=DEFAULT_TIMEOUT_SECONDS
        )
        return [refusal(o.error_code, o.error_message) or o.identity for o in answer.outcomes]

    async def _credential_one(self, credential: devices_pb2.AuthenticateAgentRequest) -> devices_pb2.AgentIdentity:
        identity: devices_pb2.AgentIdentity = await rpc.call(self.stub.AuthenticateAgent, credential)
        return identity

    async def _hello_batch(self, hellos: list[devices_pb2.AgentConnectedRequest]) -> list[ApiError | None]:
        answer: devices_pb2.AgentOutcomes = await self.stub.AgentsConnected(
            devices_pb2.AgentsConnectedRequest(agents=hellos), timeout=DEFAULT_TIMEOUT_SECONDS
        )
        return [refusal(outcome.error_code, outcome.error_message) for outcome in answer.outcomes]

    async def _hello_one(self, hello: devices_pb2.AgentConnectedRequest) -> None:
        await rpc.call(self.stub.AgentConnected, hello)

    async def _goodbye_batch(self, goodbyes: list[devices_pb2.AgentDisconnectedRequest]) -> list[ApiError | None]:
        answer: devices_pb2.AgentOutcomes = await self.stub.AgentsDisconnected(
            devices_pb2.AgentsDisconnectedRequest(agents=goodbyes), timeout=DEFAULT_TIMEOUT_SECONDS
        )
        return [refusal(outcome.error_code, outcome.error_message) for outcome in answer.outcomes]

    async def _goodbye_one(self, goodbye: devices_pb2.AgentDisconnectedRequest) -> None:
        await rpc.call(self.stub.AgentDisconnected, goodbye)
