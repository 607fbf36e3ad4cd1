from __future__ import annotations

from printcloud.core.settings import EdgeSettings, InternalAuthSettings


class Settings(EdgeSettings, InternalAuthSettings):
    service_name: str = "api-gateway"
    http_host: str = "127.0.0.1"
    http_port: int = 8080
    # Handed to agents at enrolment: where they open their WebSocket (the agent-gateway).
    agent_gateway_public_url: str = "http://127.0.0.1:8081"
