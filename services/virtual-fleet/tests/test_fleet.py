"""The fleet serves exactly the virtual computers devices lists, each with a fresh credential."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from printcloud.virtual_fleet.settings import Settings
from printcloud.virtual_fleet.workers.fleet import VirtualFleet

FIRST, SECOND = uuid.UUID(int=1), uuid.UUID(int=2)


class FakeDevices:
    def __init__(self) -> None:
        self.computers: list[uuid.UUID] = []
        self.credentials: list[uuid.UUID] = []

    async def list_virtual_computers(self) -> list[uuid.UUID]:
        return list(self.computers)

    async def issue_virtual_agent_credential(self, computer_id: uuid.UUID) -> str:
        self.credentials.append(computer_id)
        return f"credential-{computer_id}"


def _fleet(devices: FakeDevices) -> VirtualFleet:
    # Nothing listens there: each agent keeps retrying, which is all these tests need of it.
    settings = Settings(agent_gateway_url="http://127.0.0.1:9", internal_auth_secret="s" * 32)
    return VirtualFleet(devices, settings)


async def test_new_computers_are_served_and_removed_ones_retired() -> None:
    devices = FakeDevices()
    fleet = _fleet(devices)
    devices.computers = [FIRST, SECOND]
    await fleet.sync_once()
    assert set(fleet.served) == {FIRST, SECOND}
    assert devices.credentials == [FIRST, SECOND]
    second = fleet.served[SECOND].task
    devices.computers = [FIRST]
    await fleet.sync_once()
    assert set(fleet.served) == {FIRST} and second.done()
    await fleet.sync_once()
    assert len(devices.credentials) == 2, "a computer already served is not served again"
    await fleet._retire(FIRST)


async def test_an_agent_that_ended_gets_a_new_try() -> None:
    devices = FakeDevices()
    fleet = _fleet(devices)
    devices.computers = [FIRST]
    await fleet.sync_once()
    ended = fleet.served[FIRST]
    ended.task.cancel()  # as when the gateway refused it for good
    await asyncio.gather(ended.task, return_exceptions=True)
    await fleet.sync_once()
    assert fleet.served[FIRST] is not ended
    assert devices.credentials == [FIRST, FIRST]
    await fleet._retire(FIRST)


async def test_a_stopping_fleet_stops_its_agents_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """One after the other, the agents' stops (each waiting for its connection to close) could
    outlast a supervisor's grace, and the ones left would be killed before putting their jobs away."""
    devices = FakeDevices()
    fleet = _fleet(devices)
    devices.computers = [FIRST, SECOND]
    running = asyncio.create_task(fleet.run())
    async with asyncio.timeout(10):
        while len(fleet.served) < 2:
            await asyncio.sleep(0.01)
    stops_begun: list[uuid.UUID] = []
    all_begun = asyncio.Event()
    alone: list[uuid.UUID] = []

    def stopping_together(computer_id: uuid.UUID, stop: Callable[[], Awaitable[None]]) -> Callable[[], Awaitable[None]]:
        async def stop_when_all_have_begun() -> None:
            stops_begun.append(computer_id)
            if len(stops_begun) == 2:
                all_begun.set()
            try:
                await asyncio.wait_for(all_begun.wait(), 2)
            except TimeoutError:
                alone.append(computer_id)
            await stop()

        return stop_when_all_have_begun

    for computer_id, served in fleet.served.items():
        monkeypatch.setattr(served.client, "stop", stopping_together(computer_id, served.client.stop))
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    assert sorted(stops_begun) == [FIRST, SECOND]
    assert alone == [], "each agent's stop waited for the one before it"
    assert fleet.served == {}
