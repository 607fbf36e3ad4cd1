"""The faults, each injected into the running stack and healed (or left to the supervisor to heal).

A fault returns once it is over: killed processes were started again by the supervisor and are
ready, a paused broker resumed, a restarted server answers. Waiting for that polls conditions with
deadlines; the only fixed waits are the faults' own durations (a broker frozen for 60 s).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from tests.e2e.client import eventually
from tests.faults.harness import FaultStack
from tests.faults.invariants import Round, fetch
from tests.faults.load import LoadTenant, run_disconnecting_client

SERVICES = ("api-gateway", "jobs", "devices", "webhooks", "agent-gateway", "dispatcher", "virtual-fleet")
BROKER_PAUSE_SECONDS = 60.0
REDIS_DOWN_SECONDS = 20.0
# Longer than callers take to find a silent connection dead (a ping unanswered for 5 s after at
# most 10 s), and than the broker's session timeout (aiokafka's 10 s): the frozen service's
# consumers are dropped from their groups and join them again once thawed.
PAUSE_SECONDS = 20.0
BACK_WITHIN_SECONDS = 180.0


@dataclass(frozen=True)
class FaultContext:
    faults: FaultStack
    tenants: list[LoadTenant]
    rnd: Round


@dataclass(frozen=True)
class Fault:
    name: str
    inject: Callable[[FaultContext], None]


def _wait_back(ctx: FaultContext, services: tuple[str, ...]) -> None:
    eventually(lambda: all(ctx.faults.ready(s) for s in services), timeout=BACK_WITHIN_SECONDS, interval=0.1,
               what=f"{', '.join(services)} started again and ready")  # fmt: skip
    ctx.rnd.service_back_seconds = round(time.time() - ctx.rnd.injected_at, 1)


def _kill(*services: str) -> Callable[[FaultContext], None]:
    def inject(ctx: FaultContext) -> None:
        ctx.rnd.injected_at = time.time()
        for service in services:
            ctx.faults.kill(service)
        ctx.rnd.healed_at = time.time()
        _wait_back(ctx, services)

    return inject


def _pause(service: str) -> Callable[[FaultContext], None]:
    """The service frozen (SIGSTOP) with its connections open, then thawed: callers, the broker
    and PostgreSQL see a peer that stopped answering without going away."""

    def inject(ctx: FaultContext) -> None:
        ctx.rnd.injected_at = time.time()
        ctx.faults.pause(service)
        try:
            threading.Event().wait(PAUSE_SECONDS)  # the fault's own length
        finally:
            ctx.faults.resume(service)
        ctx.rnd.healed_at = time.time()

    return inject


def _jobs_in(ctx: FaultContext, states: tuple[str, ...]) -> int:
    rows = fetch(ctx.faults, "SELECT count(*) FROM jobs.print_jobs WHERE state = ANY($1) AND title LIKE $2",
                 list(states), f"fault {ctx.rnd.label}-%")  # fmt: skip
    return int(rows[0][0])


def _agent_mid_job(ctx: FaultContext) -> None:
    """The virtual agents are killed while jobs are in their hands (received or printing)."""
    eventually(lambda: _jobs_in(ctx, ("received", "printing")) >= 5, timeout=60, interval=0.05,
               what="jobs in the agents' hands")  # fmt: skip
    _kill("virtual-fleet")(ctx)


def _outbox_backlog(ctx: FaultContext, schema: str) -> int:
    return int(fetch(ctx.faults, f"SELECT count(*) FROM {schema}.outbox WHERE sent_at IS NULL")[0][0])


def _relay_mid_batch(ctx: FaultContext) -> None:
    """jobs is killed while its outbox relay is in the middle of publishing a batch: the broker is
    frozen so that the relay's send cannot finish, rows pile up, then the process dies."""
    stack = ctx.faults.stack
    stack.pause_broker()
    try:
        eventually(lambda: _outbox_backlog(ctx, "jobs") >= 20, timeout=60, interval=0.05,
                   what="a batch of jobs' outbox rows waiting on the frozen broker")  # fmt: skip
        ctx.rnd.injected_at = time.time()
        ctx.faults.kill("jobs")
    finally:
        stack.resume_broker()
    ctx.rnd.healed_at = time.time()
    _wait_back(ctx, ("jobs",))


def _broker_restart(ctx: FaultContext) -> None:
    ctx.rnd.injected_at = time.time()
    ctx.faults.stack.restart_broker()
    ctx.rnd.healed_at = time.time()


def _broker_pause(ctx: FaultContext) -> None:
    ctx.rnd.injected_at = time.time()
    ctx.faults.stack.pause_broker()
    try:
        threading.Event().wait(BROKER_PAUSE_SECONDS)  # the fault's own length
    finally:
        ctx.faults.stack.resume_broker()
    ctx.rnd.healed_at = time.time()


def _postgres_restart(ctx: FaultContext) -> None:
    ctx.rnd.injected_at = time.time()
    ctx.faults.stack.restart_postgres()
    ctx.rnd.healed_at = time.time()


def _redis_down(ctx: FaultContext) -> None:
    ctx.rnd.injected_at = time.time()
    ctx.faults.redis.kill()
    try:
        threading.Event().wait(REDIS_DOWN_SECONDS)
    finally:
        ctx.faults.restart_redis()
    ctx.rnd.healed_at = time.time()


def _client_disconnects(ctx: FaultContext) -> None:
    ctx.rnd.injected_at = time.time()
    ctx.rnd.outcomes += run_disconnecting_client(ctx.faults.api_url, ctx.tenants[0], ctx.rnd.label, rounds=3)
    ctx.rnd.healed_at = time.time()


def _several(*faults: Callable[[FaultContext], None]) -> Callable[[FaultContext], None]:
    """The faults at once; the round's times span all of them. The last runs on the calling thread:
    a process it starts (a broker started again) gets its parent-death signal when the thread that
    started it ends (`dies_with_parent`), so it must not be a short-lived thread of its own."""

    def inject(ctx: FaultContext) -> None:
        started = time.time()
        *others, last = faults
        threads = [threading.Thread(target=fault, args=(ctx,)) for fault in others]
        for thread in threads:
            thread.start()
        last(ctx)
        for thread in threads:
            thread.join()
        ctx.rnd.injected_at = started
        ctx.rnd.healed_at = time.time()
        ctx.rnd.service_back_seconds = None

    return inject


FAULTS: dict[str, Fault] = {
    fault.name: fault
    for fault in (
        *(Fault(f"kill-{service}", _kill(service)) for service in SERVICES),
        Fault("relay-mid-batch", _relay_mid_batch),
        Fault("agent-mid-job", _agent_mid_job),
        Fault("broker-restart", _broker_restart),
        Fault("broker-pause-60s", _broker_pause),
        Fault("pause-jobs-20s", _pause("jobs")),
        Fault("postgres-fast-restart", _postgres_restart),
        Fault("redis-down", _redis_down),
        Fault("client-disconnects", _client_disconnects),
        Fault("kill-jobs+webhooks+broker-restart", _several(_kill("jobs", "webhooks"), _broker_restart)),
        Fault("kill-gateways+postgres-restart", _several(_kill("api-gateway", "agent-gateway"), _postgres_restart)),
        Fault("agent-mid-job+kill-dispatcher+devices", _several(_agent_mid_job, _kill("dispatcher", "devices"))),
    )
}
