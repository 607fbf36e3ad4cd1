"""A stack of its own on stores that speak only TLS, as a managed PostgreSQL and Redis do: a
throwaway PostgreSQL cluster that refuses plain connections, reached by every service and the CLI
with `sslmode=verify-full` and the test CA, and a TLS-only redis-server for the gateway's shared
rate limit. The broker stays the dev stack's plaintext one (no TLS-capable broker is installed).

`refusals` starts, side by side, the processes a misconfigured deployment would start, each with
one setting wrong, and keeps what they said and how they ended."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from printcloud.devstack.ports import free_port
from printcloud.devstack.stack import Stack
from tests.e2e.client import PRINTCLOUD_CLI
from tests.e2e.stacks import LogFile, running_stack
from tests.support.tls_servers import Certificates, TlsPostgres, TlsRedis, make_certificates

# Never sent anywhere (the cluster trusts 127.0.0.1), so it must never be shown either.
PASSWORD = "n0t-to-be-shown"


@dataclass
class TlsStores:
    certificates: Certificates
    postgres: TlsPostgres
    redis: TlsRedis

    def database_url(self, **parameters: str) -> str:
        """An admin URL of the cluster, with a password (the cluster trusts the address)."""
        return self.postgres.url(**parameters).replace("postgres@", f"postgres:{PASSWORD}@")


@pytest.fixture(scope="package")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsStores]:
    certificates = make_certificates(tmp_path_factory.mktemp("certificates"))
    with TlsPostgres.started(certificates) as postgres, TlsRedis.started(certificates) as redis:
        yield TlsStores(certificates, postgres, redis)


@pytest.fixture(scope="package")
def tls_stack(tmp_path_factory: pytest.TempPathFactory, stores: TlsStores) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("tls-stack")
    ca = str(stores.certificates.ca)
    env = {
        "PRINTCLOUD_REDIS_URL": stores.redis.url(ssl_ca_certs=ca),
        "PRINTCLOUD_RATE_LIMIT_KEY_PREFIX": f"printcloud-e2e-tls:{uuid.uuid4()}:",
    }
    admin_url = stores.database_url(sslmode="verify-full", sslrootcert=ca)
    with running_stack(data_dir, LogFile(data_dir / "services.log"), env, postgres_url=admin_url) as stack:
        yield stack


@dataclass(frozen=True)
class Ended:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return [line for line in (self.stdout + self.stderr).splitlines() if line.strip()]


def _run(command: list[str], env: dict[str, str]) -> Ended:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PRINTCLOUD_")}
    done = subprocess.run(command, env={**clean, **env}, capture_output=True, text=True, timeout=90, check=False)
    return Ended(done.returncode, done.stdout, done.stderr)


def _service(stack: Stack, name: str, module: str, **settings: str) -> tuple[list[str], dict[str, str]]:
    """Another process of service `name` with the stack's settings but `settings`, on ports of its own."""
    env = {**stack.environment(name), "PRINTCLOUD_OPS_PORT": "0", **settings}
    if "PRINTCLOUD_GRPC_LISTEN" in env:
        env["PRINTCLOUD_GRPC_LISTEN"] = f"127.0.0.1:{free_port()}"
    if "PRINTCLOUD_HTTP_PORT" in env:
        env["PRINTCLOUD_HTTP_PORT"] = str(free_port())
    return [sys.executable, "-m", module], env


def _cli(database_url: str) -> tuple[list[str], dict[str, str]]:
    command = [PRINTCLOUD_CLI, "admin", "create-org", "--name", "Refused", "--owner-email", "owner@refused.test"]
    return command, {"PRINTCLOUD_DATABASE_URL": database_url}


@pytest.fixture(scope="package")
def refusals(tls_stack: Stack, stores: TlsStores) -> dict[str, Ended]:
    wrong_ca = stores.database_url(sslmode="verify-full", sslrootcert=str(stores.certificates.wrong_ca))
    plain = stores.database_url(sslmode="disable")
    wrong_redis_ca = stores.redis.url(ssl_ca_certs=str(stores.certificates.wrong_ca))
    runs = {
        "service, wrong CA": _service(tls_stack, "jobs", "printcloud.jobs", PRINTCLOUD_DATABASE_URL=wrong_ca),
        "CLI, wrong CA": _cli(wrong_ca),
        "service, sslmode=disable": _service(tls_stack, "devices", "printcloud.devices", PRINTCLOUD_DATABASE_URL=plain),
        "CLI, sslmode=disable": _cli(plain),
        "gateway, wrong Redis CA": _service(
            tls_stack, "api-gateway", "printcloud.api_gateway", PRINTCLOUD_REDIS_URL=wrong_redis_ca
        ),
    }
    with ThreadPoolExecutor(len(runs)) as pool:
        futures = {name: pool.submit(_run, command, env) for name, (command, env) in runs.items()}
        return {name: future.result() for name, future in futures.items()}
