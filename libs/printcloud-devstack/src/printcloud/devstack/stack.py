"""The whole system as separate processes: PostgreSQL, the broker, and every service.

`make dev` runs it on the documented ports; the end-to-end tests run it on free ports with a
database of their own, and may kill and restart single services.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from printcloud.devstack.infrastructure import (
    Broker,
    EmbeddedPostgres,
    create_database,
    drop_database,
    external_postgres_url,
    start_broker,
    unique_database_name,
)
from printcloud.devstack.ports import free_port
from printcloud.devstack.processes import ServiceProcess

# (name, module) in start order: services others call come first.
SERVICES: tuple[tuple[str, str], ...] = (
    ("devices", "printcloud.devices"),
    ("jobs", "printcloud.jobs"),
    ("webhooks", "printcloud.webhooks"),
    ("agent-gateway", "printcloud.agent_gateway"),
    ("dispatcher", "printcloud.dispatcher"),
    ("api-gateway", "printcloud.api_gateway"),
    ("virtual-fleet", "printcloud.devices.fleet"),
)


@dataclass
class StackConfig:
    data_dir: Path
    api_port: int = 8080
    agent_gateway_port: int = 8081
    jobs_grpc_port: int = 50051
    devices_grpc_port: int = 50052
    webhooks_grpc_port: int = 50053
    broker_port: int = 19092
    ops_ports: dict[str, int] = field(default_factory=dict)
    database_name: str = "printcloud"
    # Tests use the machine's PostgreSQL when it answers; `make dev` embeds its own.
    prefer_local_postgres: bool = False
    drop_database_on_stop: bool = False
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def on_free_ports(cls, data_dir: Path, *, env: dict[str, str] | None = None) -> StackConfig:
        return cls(
            data_dir=data_dir,
            api_port=free_port(),
            agent_gateway_port=free_port(),
            jobs_grpc_port=free_port(),
            devices_grpc_port=free_port(),
            webhooks_grpc_port=free_port(),
            broker_port=free_port(),
            ops_ports={name: free_port() for name, _ in SERVICES},
            database_name=unique_database_name("printcloud_e2e"),
            prefer_local_postgres=True,
            drop_database_on_stop=True,
            env=env or {},
        )


def _default_sink(name: str, line: str) -> None:
    sys.stdout.write(f"{name:>14} | {line}\n")
    sys.stdout.flush()


class Stack:
    def __init__(self, config: StackConfig, sink: Callable[[str, str], None] = _default_sink) -> None:
        self.config = config
        self.sink = sink
        self.broker: Broker | None = None
        self.postgres: EmbeddedPostgres | None = None
        self.admin_url: str | None = None
        self.database_url = ""
        self.services: dict[str, ServiceProcess] = {}

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.config.api_port}"

    @property
    def agent_gateway_url(self) -> str:
        return f"http://127.0.0.1:{self.config.agent_gateway_port}"

    def ops_url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.config.ops_ports[service]}"

    def _service_env(self, name: str) -> dict[str, str]:
        c = self.config
        env = {
            "PRINTCLOUD_SERVICE_NAME": name,
            "PRINTCLOUD_DATABASE_URL": self.database_url,
            "PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap if self.broker else "",
            "PRINTCLOUD_JOBS_GRPC_TARGET": f"127.0.0.1:{c.jobs_grpc_port}",
            "PRINTCLOUD_DEVICES_GRPC_TARGET": f"127.0.0.1:{c.devices_grpc_port}",
            "PRINTCLOUD_WEBHOOKS_GRPC_TARGET": f"127.0.0.1:{c.webhooks_grpc_port}",
            "PRINTCLOUD_OPS_PORT": str(c.ops_ports[name]),
            "PRINTCLOUD_AGENT_GATEWAY_PUBLIC_URL": self.agent_gateway_url,
            "PRINTCLOUD_AGENT_GATEWAY_URL": self.agent_gateway_url,
            "PYTHONUNBUFFERED": "1",
        }
        listen = {
            "jobs": f"127.0.0.1:{c.jobs_grpc_port}",
            "devices": f"127.0.0.1:{c.devices_grpc_port}",
            "webhooks": f"127.0.0.1:{c.webhooks_grpc_port}",
        }
        if name in listen:
            env["PRINTCLOUD_GRPC_LISTEN"] = listen[name]
        if name == "api-gateway":
            env["PRINTCLOUD_HTTP_PORT"] = str(c.api_port)
        if name == "agent-gateway":
            env["PRINTCLOUD_HTTP_PORT"] = str(c.agent_gateway_port)
        return {**env, **c.env}

    async def _prepare_database(self) -> None:
        external = external_postgres_url(self.config.prefer_local_postgres)
        if external:
            self.admin_url = external
        else:
            self.postgres = EmbeddedPostgres(self.config.data_dir / "pgdata")
            self.admin_url = self.postgres.url("postgres")
        self.database_url = await create_database(self.admin_url, self.config.database_name)

    def start(self, timeout: float = 120.0) -> None:
        c = self.config
        c.data_dir.mkdir(parents=True, exist_ok=True)
        for name, _ in SERVICES:
            c.ops_ports.setdefault(name, free_port())
        try:
            asyncio.run(self._prepare_database())
            self.broker = start_broker(c.broker_port, c.data_dir / "broker.log")
            for name, module in SERVICES:
                self.services[name] = ServiceProcess(name, module, self._service_env(name), self.sink)
                self.services[name].start()
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise

    def wait_healthy(self, timeout: float = 120.0, names: list[str] | None = None) -> None:
        deadline = time.monotonic() + timeout
        pending = list(names or self.services)
        with httpx.Client(timeout=1.0) as client:
            while pending:
                name = pending[0]
                if not self.services[name].running:
                    raise RuntimeError(f"service {name} exited during start-up (see its log lines above)")
                try:
                    if client.get(f"{self.ops_url(name)}/readyz").status_code == 200:
                        pending.pop(0)
                        continue
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"service {name} was not ready within {timeout:.0f}s")
                time.sleep(0.1)

    def kill(self, name: str) -> None:
        self.services[name].kill()

    def restart(self, name: str, timeout: float = 60.0) -> None:
        self.services[name].stop()
        self.services[name].start()
        self.wait_healthy(timeout, [name])

    def stop(self) -> None:
        # Reverse order: callers stop before the services they call.
        for service in reversed(list(self.services.values())):
            service.stop()
        if self.broker:
            self.broker.stop()
        if self.config.drop_database_on_stop and self.admin_url:
            asyncio.run(drop_database(self.admin_url, self.config.database_name))
        if self.postgres:
            self.postgres.stop()

    def describe(self) -> dict[str, str]:
        return {
            "database_url": self.database_url,
            "api_url": self.api_url,
            "agent_gateway_url": self.agent_gateway_url,
            "kafka_bootstrap_servers": self.broker.bootstrap if self.broker else "",
        }

    def write_state_file(self, path: Path) -> None:
        path.write_text(json.dumps(self.describe(), indent=2) + "\n")
