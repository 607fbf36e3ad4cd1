"""Settings of the devices process (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import CommonSettings


class Settings(CommonSettings):
    service_name: str = "devices"
    grpc_listen: str = "127.0.0.1:50052"
