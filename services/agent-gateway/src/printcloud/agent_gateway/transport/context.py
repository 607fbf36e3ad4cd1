"""What the transport handlers share: the backing services and this replica's connections."""

from __future__ import annotations

from dataclasses import dataclass, field

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.agent_gateway.domain.registry import ConnectionRegistry
from printcloud.agent_gateway.transport.connection import AgentConnection
from printcloud.v1 import devices_pb2_grpc, jobs_pb2_grpc


@dataclass
class GatewayContext:
    devices: devices_pb2_grpc.DevicesStub
    jobs: jobs_pb2_grpc.JobsStub
    instance_id: str
    file_token_secret: str
    file_token_ttl_seconds: int
    heartbeat_seconds: float
    limits: AgentLimits = field(default_factory=AgentLimits)
    registry: ConnectionRegistry[AgentConnection] = field(default_factory=ConnectionRegistry)
