"""The fleet serves exactly the virtual computers devices lists, each with a fresh credential."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from printcloud.virtual_fleet.settings import Settings
from printcloud.virtual_fleet.workers.fleet import VirtualFleet

FIRST, SECOND = uuid.UUID(int=1), uuid.UUID(int=2)


@dataclass
class Row:
    id: uuid.UUID


class FakeDevices:
    def __init__(self) -> None:
        self.computers: list[uuid.UUID] = []
        self.credentials: list[tuple[uuid.UUID, bool]] = []

    async def list_virtual_computers(self) -> list[Row]:
        return [Row(computer_id) for computer_id in self.computers]

    async def issue_agent_credential(self, computer_id: uuid.UUID, *, replace: bool) -> str:
        self.credentials.append((computer_id, replace))
        return f"credential-{computer_id}"


def _fleet(devices: FakeDevices) -> VirtualFleet:
    # Nothing listens there: each agent keeps retrying, which is all these tests need of it.
    settings = Settings(agent_gateway_url="http://127.0.0.1:9")
    return VirtualFleet(devices, settings)  # type: ignore[arg-type]


async def test_new_computers_are_served_and_removed_ones_retired() -> None:
    devices = FakeDevices()
    fleet = _fleet(devices)
    devices.computers = [FIRST, SECOND]
    await fleet.sync_once()
    assert set(fleet.served) == {FIRST, SECOND}
    assert devices.credentials == [(FIRST, True), (SECOND, True)]
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
    assert devices.credentials == [(FIRST, True), (FIRST, True)]
    await fleet._retire(FIRST)
