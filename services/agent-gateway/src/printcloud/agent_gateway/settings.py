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
