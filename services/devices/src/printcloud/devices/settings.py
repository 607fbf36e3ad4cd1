"""Settings of the devices process (`PRINTCLOUD_*` environment variables)."""

from __future__ import annotations

from printcloud.core.settings import InternalAuthSettings
from printcloud.devices.domain.pairing_attempts import (
    DEFAULT_FAILURES_PER_ADDRESS,
    DEFAULT_FAILURES_PER_PREFIX,
    DEFAULT_WINDOW,
)


class Settings(InternalAuthSettings):
    service_name: str = "devices"
    grpc_listen: str = "127.0.0.1:50052"
    # An agent-gateway replica silent this long is presumed dead and its computers go offline...
    gateway_instance_timeout_seconds: float = 30.0
    # ...checked this often (so within timeout + interval of its last heartbeat).
    gateway_sweep_seconds: float = 5.0
    # Wrong pairing codes allowed per client address, and per code prefix from all addresses
    # together, within the window (docs/api.md, "Pairing codes").
    pairing_failures_per_address: int = DEFAULT_FAILURES_PER_ADDRESS
    pairing_failures_per_prefix: int = DEFAULT_FAILURES_PER_PREFIX
    pairing_failure_window_seconds: float = DEFAULT_WINDOW.total_seconds()
