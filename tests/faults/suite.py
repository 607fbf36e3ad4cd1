"""One round of the suite: steady load, a fault, load again once the system answers, then the
invariants measured until nothing is pending, printed as figures."""

from __future__ import annotations

import time
from dataclasses import dataclass

from tests.e2e.client import eventually
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


def _answered_since(load: LoadGenerator, since: float) -> int:
    return sum(1 for o in list(load.outcomes) if o.job_id and o.first_sent >= since)


def run_round(env: SuiteEnv, fault_name: str, settle_within: float = SETTLE_WITHIN_SECONDS) -> Figures:
    started = time.time()
    rnd = Round(fault_name, f"{fault_name}-{int(started)}", started)
    load = LoadGenerator(env.faults.api_url, env.tenants, JOBS_PER_SECOND, rnd.label).start()
    try:
        eventually(lambda: _answered_since(load, started) >= STEADY_CREATES, timeout=120,
                   what="steady load before the fault")  # fmt: skip
        FAULTS[fault_name].inject(FaultContext(env.faults, env.tenants, rnd))
        eventually(lambda: _answered_since(load, rnd.healed_at) >= STEADY_CREATES, timeout=SETTLE_WITHIN_SECONDS,
                   interval=0.5, what="creates answered again after the fault")  # fmt: skip
    finally:
        rnd.outcomes += load.stop()
    figures = settle(env.faults, env.feed, env.hooks, rnd, settle_within)
    env.results.append(figures)
    print(f"\n=== fault {fault_name}: label {rnd.label}\n{figures.table()}", flush=True)
    failed = figures.failures()
    print(f"  INVARIANTS: {'all held' if not failed else f'FAILED {failed}'}", flush=True)
    return figures
