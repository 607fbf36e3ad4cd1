from __future__ import annotations

from pydantic import SecretStr, field_validator

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.core.settings import EdgeSettings, InternalAuthSettings, checked_secret


class Settings(EdgeSettings, InternalAuthSettings):
    service_name: str = "agent-gateway"
    http_host: str = "127.0.0.1"
    http_port: int = 8081
    # Signs the file download tokens; every replica must share it. No default: a deployment that
    # forgot it must not sign tokens with a value anyone can read in this repository.
    file_token_secret: SecretStr
    file_token_ttl_seconds: int = 600
    # How often the gateway pings each agent and tells devices that the agent is still there.
    heartbeat_seconds: float = 30.0
    # How often this replica tells devices it is alive; devices marks the computers of a replica
    # silent for its `gateway_instance_timeout_seconds` offline. Keep it well below that timeout.
    instance_heartbeat_seconds: float = 10.0
    # What one agent connection may send (`domain.agent_limits`); the defaults suit any print server.
    agent_max_message_bytes: int = AgentLimits.max_message_bytes
    agent_max_printers: int = AgentLimits.max_printers
    agent_max_capabilities_bytes: int = AgentLimits.max_capabilities_bytes
    agent_messages_per_second: float = AgentLimits.messages_per_second
    agent_message_burst: int = AgentLimits.message_burst
    agent_max_connecting: int = AgentLimits.max_connecting

    @property
    def agent_limits(self) -> AgentLimits:
        return AgentLimits(
            max_message_bytes=self.agent_max_message_bytes,
            max_printers=self.agent_max_printers,
            max_capabilities_bytes=self.agent_max_capabilities_bytes,
            messages_per_second=self.agent_messages_per_second,
            message_burst=self.agent_message_burst,
            max_connecting=self.agent_max_connecting,
        )

    _secret_length = field_validator("file_token_secret")(checked_secret)
