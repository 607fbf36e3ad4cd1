"""Settings shared by every process. Each service extends `CommonSettings` with its own fields.

Everything comes from `PRINTCLOUD_*` environment variables so that the same code runs under
`make dev`, in tests on free ports and in Kubernetes.
"""

from __future__ import annotations

from pydantic_settings import BaseSettings, SettingsConfigDict


class CommonSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PRINTCLOUD_", extra="ignore")

    service_name: str = "printcloud"
    instance_id: str = ""
    database_url: str = "postgresql://postgres@127.0.0.1:5432/printcloud"
    kafka_bootstrap_servers: str = "127.0.0.1:9092"
    # How often a process checks that the broker still has its log (`core.broker_epoch`).
    broker_check_seconds: float = 5.0
    log_level: str = "INFO"
    # Port of the per-process operations server: /metrics, /healthz, /readyz.
    ops_port: int = 0
    ops_host: str = "127.0.0.1"
    # "none" keeps spans in-process (trace ids still reach logs and headers); "console" prints them.
    otel_exporter: str = "none"

    jobs_grpc_target: str = "127.0.0.1:50051"
    devices_grpc_target: str = "127.0.0.1:50052"
    webhooks_grpc_target: str = "127.0.0.1:50053"
