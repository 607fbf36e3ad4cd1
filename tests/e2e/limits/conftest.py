"""A stack of its own for the edge's limits (request rate, plans and quotas): three api-gateway
replicas. The first two share the machine's Redis under a key prefix unique to this run; the third
uses a private `redis-server` that a test kills (the machine's Redis is never stopped)."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import redis

from printcloud.api_gateway.domain.rate_limits import DEFAULT_REQUESTS_PER_SECOND
from printcloud.devstack.ports import free_port, port_answers
from printcloud.devstack.processes import dies_with_parent
from printcloud.devstack.stack import Stack
from tests.e2e.client import eventually
from tests.e2e.stacks import LogFile, running_stack

MACHINE_REDIS = "redis://127.0.0.1:6379/0"
# A plan small enough to reach in a test; `free` keeps its default.
PLANS = {"free": 100, "tiny": 15}
UPGRADE_URL = "https://billing.printcloud.test/upgrade"
# What the operator CLI is run with: the gateway's plans.
PLAN_ENV = {"PRINTCLOUD_PLANS": json.dumps(PLANS)}


@dataclass
class PrivateRedis:
    url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture(scope="package")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    binary = shutil.which("redis-server")
    assert binary, "redis-server is required (scripts install it)"
    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(dies_with_parent(command), cwd=workdir, stdout=subprocess.DEVNULL)
    eventually(lambda: port_answers(port), timeout=10, what="the private redis-server")
    server = PrivateRedis(f"redis://127.0.0.1:{port}/0", process)
    yield server
    if process.poll() is None:
        server.kill()


@dataclass
class LimitsStack:
    stack: Stack
    logs: LogFile
    key_prefix: str
    private_redis: PrivateRedis


@pytest.fixture(scope="package")
def limits_stack(tmp_path_factory: pytest.TempPathFactory, private_redis: PrivateRedis) -> Iterator[LimitsStack]:
    data_dir = tmp_path_factory.mktemp("limits")
    logs = LogFile(data_dir / "services.log")
    prefix = f"printcloud-e2e:{uuid.uuid4()}:"
    env = {
        "PRINTCLOUD_REDIS_URL": MACHINE_REDIS,
        "PRINTCLOUD_RATE_LIMIT_KEY_PREFIX": prefix,
        "PRINTCLOUD_RATE_LIMIT_PER_SECOND": str(DEFAULT_REQUESTS_PER_SECOND),
        **PLAN_ENV,
        "PRINTCLOUD_UPGRADE_URL": UPGRADE_URL,
    }
    service_env = {"api-gateway-3": {"PRINTCLOUD_REDIS_URL": private_redis.url}}
    with running_stack(data_dir, logs, env, service_env=service_env, api_gateway_replicas=3) as running:
        yield LimitsStack(running, logs, prefix, private_redis)
    shared = redis.Redis.from_url(MACHINE_REDIS)
    leftovers = list(shared.scan_iter(match=f"{prefix}*"))
    if leftovers:
        shared.delete(*leftovers)
    shared.close()
