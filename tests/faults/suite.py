"""One round of the suite: steady load, a fault, load again once the system answers, then the
invariants measured until nothing is pending, printed as figures."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually
from tests.e2e.tenants import create_key, create_org
from tests.faults.faults import FAULTS, FaultContext
from tests.faults.harness import FaultStack
from tests.faults.invariants import Figures, Round, settle
from tests.faults.load import LoadGenerator, LoadTenant
from tests.faults.observers import FeedFollower, WebhookSink

JOBS_PER_SECOND = 20.0
# Creates answered before the fault (steady state) and after it (the system takes work again).
STEADY_CREATES = 60
SETTLE_WITHIN_SECONDS = 360.0


@dataclass
class SuiteEnv:
    faults: FaultStack
    tenants: list[LoadTenant]
    feed: FeedFollower
    hooks: WebhookSink
    results: list[Figures]


def load_tenant(stack: Stack, n: int) -> tuple[LoadTenant, str]:
    """A test-mode organization whose four virtual printers are online, and its admin key."""
    org_id = create_org(stack, f"Faults{n}")
    key = create_key(stack, org_id, "test", "read,print,admin")
    with api(stack.api_url, key) as client:

        def printers() -> tuple[str, ...] | None:
            found = client.get("/v1/printers").json()["data"]
            online = tuple(p["id"] for p in found if p["state"] == "online")
            return online if len(online) == 4 else None

        printer_ids = eventually(printers, timeout=90, what="the four virtual printers online")
    return LoadTenant(org_id, key, create_key(stack, org_id, "test", "read"), printer_ids), key


def _answered_since(load: LoadGenerator, since: float) -> int:
    return sum(1 for o in list(load.outcomes) if o.job_id and o.first_sent >= since)


def run_round(
    env: SuiteEnv,
    fault_name: str,
    settle_within: float = SETTLE_WITHIN_SECONDS,
    *,
    inject: Callable[[FaultContext], None] | None = None,
    steady_creates: int = STEADY_CREATES,
    api_url: str | None = None,
    rate: float = JOBS_PER_SECOND,
) -> Figures:
    """A round of the fault `fault_name`, or of `inject` (the upgrade tests' rolling upgrade, minutes
    long where a fault is seconds, hence its own `rate`), with the load sent to `api_url` (a
    balancer in front of the gateways) or the stack's gateway."""
    started = time.time()
    rnd = Round(fault_name, f"{fault_name}-{int(started)}", started)
    load = LoadGenerator(api_url or env.faults.api_url, env.tenants, rate, rnd.label).start()
    try:
        eventually(lambda: _answered_since(load, started) >= steady_creates, timeout=120,
                   what="steady load before the fault")  # fmt: skip
        (inject or FAULTS[fault_name].inject)(FaultContext(env.faults, env.tenants, rnd))
        eventually(lambda: _answered_since(load, rnd.healed_at) >= steady_creates, timeout=SETTLE_WITHIN_SECONDS,
                   interval=0.5, what="creates answered again after the fault")  # fmt: skip
    finally:
        rnd.outcomes += load.stop()
    figures = settle(env.faults, env.feed, env.hooks, rnd, settle_within)
    env.results.append(figures)
    print(f"\n=== fault {fault_name}: label {rnd.label}\n{figures.table()}", flush=True)
    failed = figures.failures()
    print(f"  INVARIANTS: {'all held' if not failed else f'FAILED {failed}'}", flush=True)
    return figures
