from __future__ import annotations

from printcloud.core.settings import CommonSettings


class Settings(CommonSettings):
    service_name: str = "agent-gateway"
    http_host: str = "127.0.0.1"
    http_port: int = 8081
    # Signs the file download tokens; every replica must share it. Override in any real deployment.
    file_token_secret: str = "dev-only-agent-file-token-secret"
    file_token_ttl_seconds: int = 600
    # How often the gateway pings each agent and tells devices that the agent is still there.
    heartbeat_seconds: float = 30.0
    # How often this replica tells devices it is alive; devices marks the computers of a replica
    # silent for its `gateway_instance_timeout_seconds` offline. Keep it well below that timeout.
    instance_heartbeat_seconds: float = 10.0
