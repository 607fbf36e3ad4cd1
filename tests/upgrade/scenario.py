"""The upgrade tests' scenario: the previous release serving the fault suite's load (idempotent
creates, the event feed followed, webhook endpoints, the virtual agents printing), upgraded to this
tree's code one process at a time, then rolled back the same way, each measured with the fault
suite's invariants (docs/reliability.md)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.client import api, eventually
from tests.e2e.jobs_api import pdf_body
from tests.faults.faults import FaultContext
from tests.faults.invariants import Figures, fetch
from tests.faults.observers import FeedFollower, WebhookSink
from tests.faults.suite import SuiteEnv, load_tenant, run_round
from tests.upgrade.release_venv import InstalledRelease
from tests.upgrade.releases import current_version
from tests.upgrade.rolling import Step, UpgradeStack, roll, running_upgrade_stack


@dataclass(frozen=True)
class Size:
    tenants: int
    steady_creates: int  # answered before the upgrade, and again after it
    rate: float  # creates a second, through the upgrade's minutes
    settle_within: float
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Scenario:
    upgrade: UpgradeStack
    suite: SuiteEnv
    previous: InstalledRelease
    size: Size


@contextlib.contextmanager
def running_scenario(previous: InstalledRelease, size: Size, data_dir: Path) -> Iterator[Scenario]:
    with running_upgrade_stack(previous.python, size.env, data_dir) as upgrade:
        made = [load_tenant(upgrade.faults.stack, n) for n in range(size.tenants)]
        tenants = [tenant for tenant, _ in made]
        feed = FeedFollower(upgrade.api.url, {t.org_id: t.read_key for t in tenants}).start()
        try:
            with WebhookSink() as hooks:
                for tenant, admin_key in made:
                    hooks.subscribe(upgrade.api.url, tenant.org_id, admin_key)
                suite = SuiteEnv(upgrade.faults, tenants, feed, hooks, [])
                yield Scenario(upgrade, suite, previous, size)
        finally:
            feed.stop()


def rolling_round(scenario: Scenario, name: str, python: str, *, migrations: bool) -> tuple[Figures, list[Step]]:
    """A round of the fault suite whose fault is every process replaced by `python`'s release."""
    steps: list[Step] = []

    def inject(ctx: FaultContext) -> None:
        ctx.rnd.injected_at = time.time()
        steps.extend(roll(scenario.upgrade, python, migrations=migrations))
        ctx.rnd.healed_at = time.time()

    figures = run_round(
        scenario.suite,
        name,
        scenario.size.settle_within,
        inject=inject,
        steady_creates=scenario.size.steady_creates,
        api_url=scenario.upgrade.api.url,
        rate=scenario.size.rate,
    )
    print(f"  {name}: " + ", ".join(f"{s.process} {s.seconds}s -> {s.version}" for s in steps), flush=True)
    errors = fetch(scenario.upgrade.faults, "SELECT state_message, count(*) AS n FROM jobs.print_jobs "
                   "WHERE state = 'error' AND title LIKE $1 GROUP BY 1", f"fault {name}-%")  # fmt: skip
    print(f"  jobs ended in error, by message: { ({r['state_message']: r['n'] for r in errors}) }", flush=True)
    return figures, steps


def upgrade_round(scenario: Scenario) -> tuple[Figures, list[Step]]:
    return rolling_round(scenario, "rolling-upgrade", sys.executable, migrations=True)


def rollback_round(scenario: Scenario) -> tuple[Figures, list[Step]]:
    return rolling_round(scenario, "rollback", scenario.previous.python, migrations=False)


def upgraded_under_load(scenario: Scenario) -> Figures:
    """The previous release serving, upgraded to this tree's: nothing lost, doubled or missing."""
    everything_runs(scenario, scenario.previous.release.version)
    figures, steps = upgrade_round(scenario)
    assert figures.failures() == {}, figures.table()
    assert [s.version for s in steps] == [current_version()] * len(steps)
    everything_runs(scenario, current_version())
    return figures


def rolled_back_under_load(scenario: Scenario) -> Figures:
    """This tree's release, on its schema, rolled back to the previous release's code: the same
    invariants, and then a job's whole life on the old code and the new schema."""
    everything_runs(scenario, current_version())
    figures, steps = rollback_round(scenario)
    assert figures.failures() == {}, figures.table()
    previous = scenario.previous.release.version
    assert [s.version for s in steps] == [previous] * len(steps)
    everything_runs(scenario, previous)
    life = one_job_through_its_life(scenario)
    assert life.states == ["queued", "sent", "received", "printing", "done"], life
    assert life.feed_types == [f"printjob.{state}" for state in life.states], life
    assert life.webhook_types == sorted(life.feed_types), life
    return figures


def everything_runs(scenario: Scenario, version: str) -> None:
    """Every process, on its ops port, and every gateway replica, on its public port, say `version`."""
    upgrade = scenario.upgrade
    assert set(upgrade.versions().values()) == {version}, upgrade.versions()
    assert set(upgrade.public_versions().values()) == {version}, upgrade.public_versions()


@dataclass(frozen=True)
class JobLife:
    states: list[str]
    feed_types: list[str]
    webhook_types: list[str]


def one_job_through_its_life(scenario: Scenario) -> JobLife:
    """A job on a tenant's virtual office printer, queued to done, as its API, feed and webhooks tell."""
    tenant = scenario.suite.tenants[0]
    with api(scenario.upgrade.api.url, tenant.key) as client:
        printers = client.get("/v1/printers").json()["data"]
        office = next(p["id"] for p in printers if p["name"] == "virtual-office")
        created = client.post("/v1/printjobs", json=pdf_body(office, title="after the rollback"))
        assert created.status_code == 201, created.text
        job_id = created.json()["id"]

        def finished() -> dict[str, object] | None:
            job: dict[str, object] = client.get(f"/v1/printjobs/{job_id}").json()
            return job if job["state"] == "done" else None

        eventually(finished, timeout=60, what="the job printed")
        states = [change["state"] for change in client.get(f"/v1/printjobs/{job_id}/events").json()["data"]]

    def in_feed() -> list[str] | None:
        types = [e.type for e in scenario.suite.feed.snapshot()[tenant.org_id] if e.subject == job_id]
        return types if "printjob.done" in types else None

    feed_types = eventually(in_feed, timeout=60, what="the job's events in the feed")
    wanted = {e.id: e.type for e in scenario.suite.feed.snapshot()[tenant.org_id] if e.subject == job_id}

    def delivered() -> list[str] | None:
        hooks = scenario.suite.hooks.by_event()
        signed = [wanted[event] for event in wanted if any(d.valid_signature for d in hooks.get(event, []))]
        return signed if len(signed) == len(wanted) else None

    webhook_types = eventually(delivered, timeout=60, what="a signed webhook for each of the job's events")
    return JobLife(states, feed_types, sorted(webhook_types))
