"""The fleet serves exactly the virtual computers devices lists, each with a fresh credential."""

from __future__ import annotations

import asyncio
import uuid

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
