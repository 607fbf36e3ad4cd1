"""The whole stack for the fault suite: every service supervised as `make dev` supervises it (a
process that dies is started again, with backoff), an embedded PostgreSQL the suite may restart, a
Redis of its own for the api-gateway's rate limiter, and virtual printers that record each print."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from printcloud.devstack.infrastructure import RedisServer
from printcloud.devstack.ports import free_port
from printcloud.devstack.stack import Stack, StackConfig
from printcloud.devstack.supervisor import Supervisor
from tests.e2e.stacks import LogFile

# The suite's stack keeps the spec's timers (resends after 60 s, rate limit 20 a second per key)
# except where a spec value would make one run last days or a load of tens of jobs a second
# impossible: the test-mode day quota and the webhook retry waits (scaled to 1 %).
FAULT_STACK_ENV = {
    "PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32",
    "PRINTCLOUD_TEST_JOBS_PER_DAY": "10000000",
    "PRINTCLOUD_RETRY_SCHEDULE_SCALE": "0.01",
    "PRINTCLOUD_ANSWER_TIMEOUT_SECONDS": "5",
    "PRINTCLOUD_CLAIM_LEASE_SECONDS": "10",
}
SUPERVISE_EVERY_SECONDS = 0.2


@dataclass
class FaultStack:
    stack: Stack
    redis: RedisServer
    print_ledger: Path
    logs: LogFile
    supervisor_log: list[tuple[float, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def api_url(self) -> str:
        return self.stack.api_url

    def supervise(self) -> None:
        # The stack's own mapping: a process put in a service's place (an upgrade) is the one watched.
        supervisor = Supervisor(self.stack.services, lambda line: self.supervisor_log.append((time.time(), line)))
        while not self._stopping.wait(SUPERVISE_EVERY_SECONDS):
            with self._lock:
                supervisor.check()

    @contextlib.contextmanager
    def holding(self) -> Iterator[Stack]:
        """The stack, with the supervisor held off while its processes are changed."""
        with self._lock:
            yield self.stack

    def kill(self, service: str) -> None:
        """kill -9, as a crash; the supervisor starts it again."""
        with self._lock:
            self.stack.kill(service)

    def pause(self, service: str) -> None:
        """SIGSTOP: the process stays, frozen, until `resume`."""
        with self._lock:
            self.stack.pause(service)

    def resume(self, service: str) -> None:
        with self._lock:
            self.stack.resume(service)

    def ready(self, service: str) -> bool:
        if not self.stack.services[service].running:
            return False
        try:
            return httpx.get(f"{self.stack.ops_url(service)}/readyz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def restart_redis(self) -> None:
        self.redis.start(self.stack.config.data_dir / "redis.log")


@contextlib.contextmanager
def running_fault_stack(
    data_dir: Path, *, env: dict[str, str] | None = None, gateway_replicas: int = 1, python: str = sys.executable
) -> Iterator[FaultStack]:
    """`env` adds to the suite's settings; `python` runs the services (another release's, for the
    upgrade tests)."""
    logs = LogFile(data_dir / "services.log")
    redis = RedisServer(free_port())
    redis.start(data_dir / "redis.log")
    ledger = data_dir / "printed.jsonl"
    env = {**FAULT_STACK_ENV, **(env or {}), "PRINTCLOUD_REDIS_URL": redis.url,
           "PRINTCLOUD_VIRTUAL_PRINT_LEDGER": str(ledger)}  # fmt: skip
    config = StackConfig.on_free_ports(
        data_dir / "stack", env=env, agent_gateway_replicas=gateway_replicas, api_gateway_replicas=gateway_replicas
    )
    config.python = python
    # A PostgreSQL of the stack's own: the suite restarts it, which it may not do to the machine's.
    config.prefer_local_postgres = False
    config.drop_database_on_stop = False
    stack = Stack(config, sink=logs)
    try:
        stack.start(timeout=180)
    except Exception:
        print(logs.path.read_text()[-20000:])
        redis.kill()
        raise
    if stack.postgres is None:
        stack.stop()
        redis.kill()
        raise RuntimeError("the fault stack needs its own PostgreSQL: unset PRINTCLOUD_DEVSTACK_POSTGRES_URL")
    faults = FaultStack(stack, redis, ledger, logs)
    supervisor = threading.Thread(target=faults.supervise, name="fault-stack-supervisor", daemon=True)
    supervisor.start()
    try:
        yield faults
    finally:
        faults._stopping.set()
        supervisor.join()
        stack.stop()
        redis.kill()
        print(f"\nservice logs: {logs.path}")
