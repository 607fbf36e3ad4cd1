"""The devices service, as the virtual fleet calls it (`workers.fleet.Devices`)."""

from __future__ import annotations

import uuid

from printcloud.core import rpc
from printcloud.core.ids import uuid_field
from printcloud.v1 import devices_pb2, devices_pb2_grpc


class DevicesClient:
    def __init__(self, stub: devices_pb2_grpc.DevicesStub) -> None:
        self.stub = stub

    async def list_virtual_computers(self) -> list[uuid.UUID]:
        request = devices_pb2.ListVirtualComputersRequest()
        found: devices_pb2.ComputerList = await rpc.call(self.stub.ListVirtualComputers, request)
        return [uuid_field(computer.id, "id") for computer in found.items]

    async def issue_virtual_agent_credential(self, computer_id: uuid.UUID) -> str:
        request = devices_pb2.IssueVirtualAgentCredentialRequest(computer_id=str(computer_id))
        issued: devices_pb2.VirtualAgentCredential = await rpc.call(self.stub.IssueVirtualAgentCredential, request)
        return issued.agent_credential
