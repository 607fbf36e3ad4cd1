from __future__ import annotations

from dataclasses import dataclass

from printcloud.api_gateway.persistence.repository import AccountsRepository
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc


@dataclass(frozen=True)
class GatewayDeps:
    """Everything the HTTP layer talks to; tests build one around fakes."""

    accounts: AccountsRepository
    jobs: jobs_pb2_grpc.JobsStub
    devices: devices_pb2_grpc.DevicesStub
    agent_gateway_public_url: str
