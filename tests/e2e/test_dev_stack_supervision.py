"""`make dev` keeps running when a service dies: the supervisor starts the killed process again."""

from __future__ import annotations

import time

import httpx

from printcloud.devstack.stack import Stack
from printcloud.devstack.supervisor import Supervisor
from tests.e2e.client import eventually


def test_a_killed_service_is_started_again_and_becomes_ready(stack: Stack) -> None:
    said: list[str] = []
    supervisor = Supervisor(dict(stack.services), said.append)
    supervisor.check()
    first_pid = stack.services["dispatcher"].process.pid

    stack.kill("dispatcher")

    def ready_again() -> bool:
        supervisor.check()
        if not stack.services["dispatcher"].running:
            return False
        try:
            return httpx.get(f"{stack.ops_url('dispatcher')}/readyz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    started = time.monotonic()
    eventually(ready_again, timeout=60, interval=0.1, what="the dispatcher restarted and ready")
    assert stack.services["dispatcher"].process.pid != first_pid
    assert said == ["service dispatcher exited; restarting it in 1s", "restarting service dispatcher (restart 1)"]
    print(f"dispatcher back and ready {time.monotonic() - started:.1f}s after kill -9")
