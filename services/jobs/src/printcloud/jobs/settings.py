"""Settings of the jobs service (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import EgressSettings, InternalAuthSettings


class Settings(EgressSettings, InternalAuthSettings):
    service_name: str = "jobs"
    grpc_listen: str = "127.0.0.1:50051"
    # Spec limits as settings (spec values by default) so tests can reach them quickly.
    file_retention_seconds: int = 7 * 24 * 3600
    test_jobs_per_day: int = 500
    content_fetch_timeout_seconds: float = 30.0
    housekeeping_interval_seconds: float = 60.0
