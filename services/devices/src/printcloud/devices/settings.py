"""Settings of the devices process (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import InternalAuthSettings


class Settings(InternalAuthSettings):
    service_name: str = "devices"
    grpc_listen: str = "127.0.0.1:50052"
    # An agent-gateway replica silent this long is presumed dead and its computers go offline...
    gateway_instance_timeout_seconds: float = 30.0
    # ...checked this often (so within timeout + interval of its last heartbeat).
    gateway_sweep_seconds: float = 5.0
