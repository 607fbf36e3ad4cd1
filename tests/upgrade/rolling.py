"""A rolling upgrade of a running stack from one release's code to another's, as `helm upgrade`
does it: the migrations Job first (each database-backed service's `migrate`, run by the new
release while the old one serves), then every process replaced one at a time as a Deployment's
rolling update replaces its pods (maxSurge 1, maxUnavailable 0): the new process starts beside the
old one and, once ready, takes the old one's place in its Service (a balancer for the HTTP
gateways; the shared port of a gRPC service), and the old one is stopped and drains. The virtual
fleet, which must never run twice, is recreated. Rolling back is the same with the old release's
interpreter and no migrations (`helm rollback` reverts none)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from aiokafka.admin import AIOKafkaAdminClient

from tests.e2e.client import eventually
from tests.faults.harness import FaultStack, running_fault_stack
from tests.upgrade.balancer import Balancer

# The chart's migrations Job migrates these schemas, one service after the other.
MIGRATING = ("api-gateway", "jobs", "devices", "webhooks")
# One process at a time: services others call first, the gateways' second replicas after the
# virtual fleet, so that agents meet gateways of both releases.
ORDER = (
    "devices",
    "jobs",
    "webhooks",
    "agent-gateway",
    "virtual-fleet",
    "agent-gateway-2",
    "dispatcher",
    "api-gateway",
    "api-gateway-2",
)
RECREATED = {"virtual-fleet"}
READY_WITHIN_SECONDS = 120.0
# The consumer group each service's replicas share (named `<group>.<broker life>` on the broker).
CONSUMER_GROUPS = {"devices": "devices", "webhooks": "webhooks"}


@dataclass(frozen=True)
class Step:
    process: str
    seconds: float  # from starting the new process to the old one stopped
    version: str  # what the process in place reports on /healthz afterwards


@dataclass
class UpgradeStack:
    """The fault suite's stack with two replicas of each gateway, each gateway's replicas behind
    a balancer that clients and agents use, as they would use a Service."""

    faults: FaultStack
    api: Balancer
    agents: Balancer

    @property
    def balancers(self) -> dict[str, Balancer]:
        return {"api-gateway": self.api, "agent-gateway": self.agents}

    def version_of(self, name: str) -> str:
        version: str = httpx.get(f"{self.faults.stack.ops_url(name)}/healthz", timeout=5).json()["version"]
        return version

    def versions(self) -> dict[str, str]:
        return {name: self.version_of(name) for name in self.faults.stack.services}

    def public_versions(self) -> dict[str, str]:
        """What each gateway replica answers on its public port's /healthz."""
        urls = {**self.faults.stack.api_urls, **self.faults.stack.agent_gateway_urls}
        return {name: httpx.get(f"{url}/healthz", timeout=5).json()["version"] for name, url in urls.items()}


@contextlib.contextmanager
def running_upgrade_stack(python: str, env: dict[str, str], data_dir: Path) -> Iterator[UpgradeStack]:
    """The stack run by `python` (the release upgraded from), its logs and data in `data_dir`."""
    api, agents = Balancer(0, []).start(), Balancer(0, []).start()
    try:
        agents_url = agents.url
        env = {**env, "PRINTCLOUD_AGENT_GATEWAY_URL": agents_url, "PRINTCLOUD_AGENT_GATEWAY_PUBLIC_URL": agents_url}
        with running_fault_stack(data_dir, env=env, gateway_replicas=2, python=python) as faults:
            stack = faults.stack
            for url in stack.api_urls.values():
                api.add(httpx.URL(url).port or 0)
            for url in stack.agent_gateway_urls.values():
                agents.add(httpx.URL(url).port or 0)
            yield UpgradeStack(faults, api, agents)
    finally:
        api.stop()
        agents.stop()


def migrate(upgrade: UpgradeStack, python: str) -> None:
    """The chart's migrations Job, run by `python`'s release while the stack serves."""
    for name in MIGRATING:
        done = upgrade.faults.stack.run_once(name, python, "migrate")
        if done.returncode != 0:
            raise RuntimeError(f"`{name} migrate` failed:\n{done.stdout[-4000:]}{done.stderr[-4000:]}")


def replace(upgrade: UpgradeStack, name: str, python: str) -> Step:
    """Process `name` replaced by one of `python`'s release."""
    started = time.monotonic()
    faults = upgrade.faults
    if name in RECREATED:
        with faults.holding() as stack:
            stack.recreate(name, python)
        faults.stack.wait_healthy(READY_WITHIN_SECONDS, [name])
    else:
        new = faults.stack.surge(name, python, READY_WITHIN_SECONDS)
        if name in CONSUMER_GROUPS:
            _wait_group_joined(faults, CONSUMER_GROUPS[name], members=2)
        balancer = upgrade.balancers.get(name.rsplit("-", 1)[0] if name[-1].isdigit() else name)
        if balancer is not None:
            balancer.add(int(new.env["PRINTCLOUD_HTTP_PORT"]))
            balancer.remove(_http_port(faults, name))
        with faults.holding() as stack:
            stack.retire(name, new)
    return Step(name, round(time.monotonic() - started, 1), upgrade.version_of(name))


def _wait_group_joined(faults: FaultStack, group: str, members: int) -> None:
    """Until the broker shows `group` settled with `members` members: the new process has joined.

    From 1.1 a process is ready only once its consumers joined their groups, so a rolling update
    never stops the member it replaces in the middle of that rebalance; 1.0.0's readiness did not
    wait, and the embedded broker leaves a group whose member leaves mid-rebalance without an
    assignment for minutes (state `Unknown`, reproduced with the dev stack alone). Waiting here
    makes a process of either release be replaced as 1.1's readiness has it."""

    async def settled() -> bool:
        assert faults.stack.broker is not None
        admin = AIOKafkaAdminClient(bootstrap_servers=faults.stack.broker.bootstrap)
        await admin.start()
        try:
            names = [g[0] for g in await admin.list_consumer_groups() if str(g[0]).startswith(f"{group}.")]
            described = await admin.describe_consumer_groups(names) if names else []
        finally:
            await admin.close()
        found = [g for response in described for g in response.groups]
        return any(g[2] == "Stable" and len(g[5]) == members for g in found)

    eventually(lambda: asyncio.run(settled()), timeout=READY_WITHIN_SECONDS, interval=0.5,
               what=f"the {group} consumer group settled with {members} members")  # fmt: skip


def _http_port(faults: FaultStack, name: str) -> int:
    urls = {**faults.stack.api_urls, **faults.stack.agent_gateway_urls}
    return httpx.URL(urls[name]).port or 0


def roll(upgrade: UpgradeStack, python: str, *, migrations: bool) -> list[Step]:
    """Every process replaced by `python`'s release, after its migrations when `migrations`."""
    if migrations:
        migrate(upgrade, python)
    return [replace(upgrade, name, python) for name in ORDER]
