"""The whole system as separate processes: PostgreSQL, the broker, and every service.

`make dev` runs it on the documented ports; the end-to-end tests run it on free ports with a
database of their own, and may kill and restart single services.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
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
from printcloud.devstack.ports import free_ports
from printcloud.devstack.processes import ServiceProcess, with_settings
from printcloud.devstack.service_env import for_service, overrides_from, refuse_unknown
from printcloud.devstack.smtp_sink import SmtpSink

# (name, module) in start order: services others call come first.
SERVICES: tuple[tuple[str, str], ...] = (
    ("devices", "printcloud.devices"),
    ("jobs", "printcloud.jobs"),
    ("webhooks", "printcloud.webhooks"),
    ("agent-gateway", "printcloud.agent_gateway"),
    ("dispatcher", "printcloud.dispatcher"),
    ("api-gateway", "printcloud.api_gateway"),
    ("virtual-fleet", "printcloud.virtual_fleet"),
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
    # The local SMTP sink the webhooks service e-mails owners through and the api-gateway sends
    # sign-in codes through.
    smtp_port: int = 2525
    # PRINTCLOUD_SIGNUP of the api-gateway: `make dev` opens sign-up, tests choose.
    signup: str = "closed"
    ops_ports: dict[str, int] = field(default_factory=dict)
    database_name: str = "printcloud"
    # Tests use the machine's PostgreSQL when it answers; `make dev` embeds its own.
    prefer_local_postgres: bool = False
    # An admin URL of the server to use, over PRINTCLOUD_DEVSTACK_POSTGRES_URL and the above.
    postgres_url: str = ""
    drop_database_on_stop: bool = False
    env: dict[str, str] = field(default_factory=dict)
    # Settings for one service (by name, replicas included) over `env`.
    service_env: dict[str, dict[str, str]] = field(default_factory=dict)
    # More than one runs replicas `agent-gateway-2`, ... beside `agent-gateway`, each on its own port.
    agent_gateway_replicas: int = 1
    extra_agent_gateway_ports: list[int] = field(default_factory=list)
    # Likewise `api-gateway-2`, ...; they share the limits only through PRINTCLOUD_REDIS_URL.
    api_gateway_replicas: int = 1
    extra_api_ports: list[int] = field(default_factory=list)
    # The interpreter the services run by: this one, or a virtualenv of another release's.
    python: str = sys.executable

    @classmethod
    def on_free_ports(
        cls,
        data_dir: Path,
        *,
        env: dict[str, str] | None = None,
        service_env: dict[str, dict[str, str]] | None = None,
        agent_gateway_replicas: int = 1,
        api_gateway_replicas: int = 1,
        signup: str = "closed",
        postgres_url: str = "",
    ) -> StackConfig:
        api, agent_gateway, jobs, devices, webhooks, broker, smtp = free_ports(7)
        # Ops ports and extra replicas' ports are chosen by `start`, clear of these.
        return cls(
            agent_gateway_replicas=agent_gateway_replicas,
            api_gateway_replicas=api_gateway_replicas,
            service_env=service_env or {},
            signup=signup,
            data_dir=data_dir,
            api_port=api,
            agent_gateway_port=agent_gateway,
            jobs_grpc_port=jobs,
            devices_grpc_port=devices,
            webhooks_grpc_port=webhooks,
            broker_port=broker,
            smtp_port=smtp,
            database_name=unique_database_name("printcloud_e2e"),
            prefer_local_postgres=True,
            postgres_url=postgres_url,
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
        self.smtp_sink: SmtpSink | None = None
        # A development secret of this stack's own, shared by its agent-gateway replicas: no fixed
        # value exists that a deployment could inherit by forgetting its own.
        self.file_token_secret = secrets.token_urlsafe(32)
        self.internal_auth_secret = secrets.token_urlsafe(32)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.config.api_port}"

    @property
    def api_urls(self) -> dict[str, str]:
        """Every api-gateway replica's base URL, by service name."""
        return {name: f"http://127.0.0.1:{port}" for name, port in self._api_ports().items()}

    def _api_ports(self) -> dict[str, int]:
        c = self.config
        return {"api-gateway": c.api_port, **{f"api-gateway-{i + 2}": port for i, port in enumerate(c.extra_api_ports)}}

    @property
    def agent_gateway_url(self) -> str:
        return f"http://127.0.0.1:{self.config.agent_gateway_port}"

    @property
    def agent_gateway_urls(self) -> dict[str, str]:
        """Every agent-gateway replica's base URL, by service name."""
        return {name: f"http://127.0.0.1:{port}" for name, port in self._agent_gateway_ports().items()}

    def _agent_gateway_ports(self) -> dict[str, int]:
        c = self.config
        extra = {f"agent-gateway-{i + 2}": port for i, port in enumerate(c.extra_agent_gateway_ports)}
        return {"agent-gateway": c.agent_gateway_port, **extra}

    def _service_list(self) -> list[tuple[str, str]]:
        """SERVICES with the gateway replicas the config asks for."""
        replicas = {
            "agent-gateway": self.config.agent_gateway_replicas,
            "api-gateway": self.config.api_gateway_replicas,
        }
        expanded = []
        for name, module in SERVICES:
            expanded.append((name, module))
            expanded += [(f"{name}-{i}", module) for i in range(2, replicas.get(name, 1) + 1)]
        return expanded

    def ops_url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.config.ops_ports[service]}"

    def environment(self, name: str) -> dict[str, str]:
        """The environment the stack gives service `name`: a test starts another process of it with
        a setting changed."""
        return self._service_env(name, dict(self._service_list())[name])

    @property
    def ops_urls(self) -> dict[str, str]:
        """Every process's ops server (`/metrics`, `/healthz`, `/readyz`), replicas included, by name."""
        return {name: self.ops_url(name) for name, _ in self._service_list()}

    def _service_env(self, name: str, module: str, python: str | None = None) -> dict[str, str]:
        c = self.config
        env = {
            **overrides_from(os.environ),
            "PRINTCLOUD_SERVICE_NAME": name,
            "PRINTCLOUD_DATABASE_URL": self.database_url,
            "PRINTCLOUD_KAFKA_BOOTSTRAP_SERVERS": self.broker.bootstrap if self.broker else "",
            "PRINTCLOUD_JOBS_GRPC_TARGET": f"127.0.0.1:{c.jobs_grpc_port}",
            "PRINTCLOUD_DEVICES_GRPC_TARGET": f"127.0.0.1:{c.devices_grpc_port}",
            "PRINTCLOUD_WEBHOOKS_GRPC_TARGET": f"127.0.0.1:{c.webhooks_grpc_port}",
            "PRINTCLOUD_OPS_PORT": str(c.ops_ports[name]),
            "PRINTCLOUD_AGENT_GATEWAY_PUBLIC_URL": self.agent_gateway_url,
            # Where people reach the API and the dashboard: links in invitations, the enrolment command.
            "PRINTCLOUD_PUBLIC_URL": self.api_url,
            "PRINTCLOUD_AGENT_GATEWAY_URL": self.agent_gateway_url,
            "PRINTCLOUD_FILE_TOKEN_SECRET": self.file_token_secret,
            "PRINTCLOUD_INTERNAL_AUTH_SECRET": self.internal_auth_secret,
            "PYTHONUNBUFFERED": "1",
        }
        listen = {
            "jobs": f"127.0.0.1:{c.jobs_grpc_port}",
            "devices": f"127.0.0.1:{c.devices_grpc_port}",
            "webhooks": f"127.0.0.1:{c.webhooks_grpc_port}",
        }
        if name in listen:
            env["PRINTCLOUD_GRPC_LISTEN"] = listen[name]
        if name in self._api_ports():
            env["PRINTCLOUD_HTTP_PORT"] = str(self._api_ports()[name])
            env["PRINTCLOUD_SIGNUP"] = c.signup
            env["PRINTCLOUD_PUBLIC_URL"] = self.api_url
        if name in self._agent_gateway_ports():
            env["PRINTCLOUD_HTTP_PORT"] = str(self._agent_gateway_ports()[name])
        if name == "virtual-fleet":
            # Kept across the fleet's restarts (`make dev` restarts a service that died).
            env["PRINTCLOUD_VIRTUAL_STATE_DIR"] = str(c.data_dir / "virtual-agents")
        if name == "webhooks" or name in self._api_ports():
            env["PRINTCLOUD_SMTP_HOST"] = "127.0.0.1"
            env["PRINTCLOUD_SMTP_PORT"] = str(c.smtp_port)
        return for_service(module, {**env, **c.env, **c.service_env.get(name, {})}, python or c.python)

    async def _prepare_database(self) -> None:
        external = external_postgres_url(self.config.prefer_local_postgres, self.config.postgres_url)
        if external:
            self.admin_url = external
        else:
            self.postgres = EmbeddedPostgres(self.config.data_dir / "pgdata")
            self.admin_url = self.postgres.url("postgres")
        self.database_url = await create_database(self.admin_url, self.config.database_name)

    def start(self, timeout: float = 120.0) -> None:
        c = self.config
        c.data_dir.mkdir(parents=True, exist_ok=True)
        missing_replicas = c.agent_gateway_replicas - 1 - len(c.extra_agent_gateway_ports)
        missing_api = max(c.api_gateway_replicas - 1 - len(c.extra_api_ports), 0)
        missing_ops = [name for name, _ in self._service_list() if name not in c.ops_ports]
        chosen = iter(free_ports(max(missing_replicas, 0) + missing_api + len(missing_ops), exclude=self._ports()))
        c.extra_agent_gateway_ports += [next(chosen) for _ in range(max(missing_replicas, 0))]
        c.extra_api_ports += [next(chosen) for _ in range(missing_api)]
        c.ops_ports.update({name: next(chosen) for name in missing_ops})
        overrides = [*c.env, *(name for env in c.service_env.values() for name in env), *overrides_from(os.environ)]
        refuse_unknown(overrides, [module for _, module in SERVICES])
        try:
            asyncio.run(self._prepare_database())
            self.broker = start_broker(c.broker_port, c.data_dir / "broker.log")
            smtp_sink = SmtpSink(c.smtp_port, c.data_dir / "mail.log")
            smtp_sink.start()
            self.smtp_sink = smtp_sink
            for name, module in self._service_list():
                env = self._service_env(name, module)
                self.services[name] = ServiceProcess(name, module, env, self.sink, c.python)
                self.services[name].start()
            self.wait_healthy(timeout)
        except BaseException:
            self.stop()
            raise

    def wait_healthy(self, timeout: float = 120.0, names: list[str] | None = None) -> None:
        deadline = time.monotonic() + timeout
        for name in names or list(self.services):
            self._wait_ready(self.services[name], self.ops_url(name), deadline - time.monotonic(), timeout)

    def _ports(self) -> set[int]:
        c = self.config
        return {
            c.api_port, c.agent_gateway_port, c.jobs_grpc_port, c.devices_grpc_port, c.webhooks_grpc_port,
            c.broker_port, c.smtp_port, *c.extra_agent_gateway_ports, *c.extra_api_ports, *c.ops_ports.values(),
        }  # fmt: skip

    def surge(self, name: str, python: str, timeout: float = 60.0) -> ServiceProcess:
        """Starts another process of service `name`, run by `python` (another release's), beside
        the running one, as a Deployment's rolling update starts a new pod: the same settings, with
        an ops port and (a gateway) an HTTP port of its own; a gRPC service shares the port (gRPC
        servers bind it with SO_REUSEPORT, so the kernel spreads new connections over both).
        Returns once it is ready; `retire` then stops the old process and puts this one in its place."""
        module = self.services[name].module
        ops_port, http_port = free_ports(2, exclude=self._ports())
        env = {**self._service_env(name, module, python), "PRINTCLOUD_OPS_PORT": str(ops_port)}
        if name in self._api_ports() or name in self._agent_gateway_ports():
            env["PRINTCLOUD_HTTP_PORT"] = str(http_port)
        process = ServiceProcess(name, module, env, self.sink, python)
        process.start()
        self._wait_ready(process, f"http://127.0.0.1:{ops_port}", timeout)
        return process

    def retire(self, name: str, replacement: ServiceProcess) -> None:
        """Stops service `name`'s running process (SIGTERM: it drains) and puts `replacement` in its place."""
        self.services[name].stop()
        self.services[name] = replacement
        self.config.ops_ports[name] = int(replacement.env["PRINTCLOUD_OPS_PORT"])
        if "PRINTCLOUD_HTTP_PORT" in replacement.env:
            self._set_http_port(name, int(replacement.env["PRINTCLOUD_HTTP_PORT"]))

    def recreate(self, name: str, python: str) -> ServiceProcess:
        """Stops service `name` and starts it again run by `python`, on the same ports: a Deployment
        with the `Recreate` strategy (the virtual fleet, which must never run twice). Not waited for."""
        old = self.services[name]
        old.stop()
        self.services[name] = ServiceProcess(name, old.module, self._service_env(name, old.module, python), self.sink,
                                             python)  # fmt: skip
        self.services[name].start()
        return self.services[name]

    def run_once(self, name: str, python: str, *arguments: str) -> subprocess.CompletedProcess[str]:
        """`python -m <module of service name> <arguments>` with that service's settings, to its end:
        the chart's migrations Job runs each database-backed service's `migrate` so."""
        module = self.services[name].module
        env = with_settings(self._service_env(name, module, python))
        return subprocess.run([python, "-m", module, *arguments], env=env, capture_output=True, text=True, timeout=300)

    def _set_http_port(self, name: str, port: int) -> None:
        c = self.config
        if name == "api-gateway":
            c.api_port = port
        elif name == "agent-gateway":
            c.agent_gateway_port = port
        else:
            replicas = c.extra_api_ports if name in self._api_ports() else c.extra_agent_gateway_ports
            replicas[int(name.rsplit("-", 1)[1]) - 2] = port

    def _wait_ready(self, process: ServiceProcess, ops_url: str, timeout: float, said: float | None = None) -> None:
        """Until `process` answers ready; `said` is the timeout to name in the error (the stack's whole start)."""
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0) as client:
            while True:
                if not process.running:
                    raise RuntimeError(f"service {process.name} exited during start-up (see its log lines above)")
                try:
                    if client.get(f"{ops_url}/readyz").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise TimeoutError(f"service {process.name} was not ready within {said or timeout:.0f}s")
                time.sleep(0.1)

    def kill(self, name: str) -> None:
        self.services[name].kill()

    def pause(self, name: str) -> None:
        self.services[name].pause()

    def resume(self, name: str) -> None:
        self.services[name].resume()

    def restart(self, name: str, timeout: float = 60.0) -> None:
        self.services[name].stop()
        self.services[name].start()
        self.wait_healthy(timeout, [name])

    def restart_broker(self) -> None:
        """Kills the broker and starts it again on its port: the embedded broker keeps its log in
        memory, so the new one starts with no topics, messages or group offsets."""
        assert self.broker is not None
        self.broker.process.kill()
        self.broker.process.wait()
        self.broker = start_broker(self.config.broker_port, self.config.data_dir / "broker.log")

    def pause_broker(self) -> None:
        assert self.broker is not None
        self.broker.pause()

    def resume_broker(self) -> None:
        assert self.broker is not None
        self.broker.resume()

    def restart_postgres(self) -> None:
        """A fast restart of the stack's own PostgreSQL; a shared server is not the stack's to restart."""
        if self.postgres is None:
            raise RuntimeError("this stack uses an external PostgreSQL server, which it cannot restart")
        self.postgres.restart_fast()

    def stop(self) -> None:
        """Stops what was started, once: a start that fails stops the stack and `make dev` stops it
        again on its way out, and a second stop must not hide the first failure behind its own."""
        # Reverse order: callers stop before the services they call.
        for service in reversed(list(self.services.values())):
            service.stop()
        if self.broker:
            self.broker.stop()
            self.broker = None
        if self.smtp_sink:
            self.smtp_sink.stop()
            self.smtp_sink = None
        if self.config.drop_database_on_stop and self.admin_url:
            asyncio.run(drop_database(self.admin_url, self.config.database_name))
            self.admin_url = None
        if self.postgres:
            self.postgres.stop()
            self.postgres = None

    def describe(self) -> dict[str, str]:
        return {
            "database_url": self.database_url,
            "api_url": self.api_url,
            "dashboard_url": f"{self.api_url}/dashboard",
            "agent_gateway_url": self.agent_gateway_url,
            "kafka_bootstrap_servers": self.broker.bootstrap if self.broker else "",
            "smtp_sink": f"127.0.0.1:{self.config.smtp_port} (messages in {self.config.data_dir / 'mail.log'})",
        }

    def write_state_file(self, path: Path) -> None:
        """What `make dev` leaves in `.dev/stack.json` for tools and people: the addresses of
        `describe`, and the ops ports, which are chosen free at each start."""
        path.write_text(json.dumps({**self.describe(), "ops_urls": self.ops_urls}, indent=2) + "\n")
