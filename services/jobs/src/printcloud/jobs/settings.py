"""Settings of the jobs service (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import CommonSettings


class Settings(CommonSettings):
    service_name: str = "jobs"
    grpc_listen: str = "127.0.0.1:50051"
