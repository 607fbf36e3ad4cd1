"""The fault suite's stack, tenants, event-feed follower and webhook endpoints, started once."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import FaultStack, running_fault_stack
from tests.faults.observers import FeedFollower, WebhookSink
from tests.faults.suite import SuiteEnv, load_tenant

TENANTS = 4


@pytest.fixture(scope="session")
def fault_stack(request: pytest.FixtureRequest) -> Iterator[FaultStack]:
    # Not under pytest's temporary directory: another pytest run on the machine removes the oldest
    # of those while this long suite still has its PostgreSQL data there.
    data_dir = Path(tempfile.mkdtemp(prefix="printcloud-faults-"))
    with running_fault_stack(data_dir) as faults:
        yield faults
    if request.session.testsfailed:
        print(f"kept for a look at what failed: {data_dir}")  # the service logs, the ledger, the database
    else:
        shutil.rmtree(data_dir, ignore_errors=True)


def _seconds(value: float | None) -> str:
    """None: not a figure of this fault (nothing was killed) or never reached."""
    return "-" if value is None else f"{value}s"


@pytest.fixture(scope="session")
def suite(fault_stack: FaultStack) -> Iterator[SuiteEnv]:
    made = [load_tenant(fault_stack.stack, n) for n in range(TENANTS)]
    tenants = [tenant for tenant, _ in made]
    feed = FeedFollower(fault_stack.api_url, {t.org_id: t.read_key for t in tenants}).start()
    with WebhookSink() as hooks:
        for tenant, admin_key in made:
            hooks.subscribe(fault_stack.api_url, tenant.org_id, admin_key)
        env = SuiteEnv(fault_stack, tenants, feed, hooks, [])
        try:
            yield env
        finally:
            feed.stop()
            if env.results:
                print("\n=== fault suite summary")
                for figures in env.results:
                    failed = figures.failures()
                    print(f"  {figures.fault:<40} back {_seconds(figures.service_back_seconds)}, first done "
                          f"{_seconds(figures.first_done_after_fault_seconds)}, settled "
                          f"{_seconds(figures.settled_seconds)}: {failed or 'held'}")  # fmt: skip
