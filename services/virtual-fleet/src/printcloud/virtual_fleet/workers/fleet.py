"""The virtual fleet: one virtual agent per organization's test-mode computer.

Each agent is the real `printcloud.agent` client with the virtual backend, connected to the
agent-gateway over WebSocket like any agent, so test jobs take the live code path. The fleet
asks devices for the virtual computers every few seconds. It runs as its own process
(`python -m printcloud.virtual_fleet`, wired in `app.py`).

Run exactly one fleet process: two would connect the same computers and replace each other's
connections.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from printcloud.agent.backends.print_ledger import PrintLedger
from printcloud.agent.backends.virtual import VirtualBackend
from printcloud.agent.client import AgentClient
from printcloud.contracts.errors import ApiError
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER
from printcloud.virtual_fleet.settings import Settings

log = logging.getLogger(__name__)


class Devices(Protocol):
    """What the fleet needs of the devices service (`transport/devices_client.py`)."""

    async def list_virtual_computers(self) -> list[uuid.UUID]: ...

    async def issue_virtual_agent_credential(self, computer_id: uuid.UUID) -> str:
        """A fresh credential for the computer's agent; its earlier ones are revoked."""
        ...


@dataclass
class _Served:
    client: AgentClient
    task: asyncio.Task[None]


class VirtualFleet:
    def __init__(self, devices: Devices, settings: Settings) -> None:
        self.devices = devices
        self.settings = settings
        self.served: dict[uuid.UUID, _Served] = {}

    async def _serve(self, computer_id: uuid.UUID) -> None:
        credential = await self.devices.issue_virtual_agent_credential(computer_id)
        ledger, state = self.settings.virtual_print_ledger, self.settings.virtual_state_dir
        state_dir = Path(state) / str(computer_id) if state else None
        if state_dir is not None:
            state_dir.mkdir(parents=True, exist_ok=True)
        client = AgentClient(
            self.settings.agent_gateway_url,
            credential,
            VirtualBackend(
                printing_after=self.settings.virtual_printing_after_seconds,
                done_after=self.settings.virtual_done_after_seconds,
                print_ledger=PrintLedger(Path(ledger)) if ledger else None,
            ),
            VIRTUAL_COMPUTER,
            state_dir=state_dir,
        )
        task = asyncio.create_task(client.run(), name=f"virtual-agent-{computer_id}")
        self.served[computer_id] = _Served(client, task)
        log.info("serving virtual computer", extra={"computer_id": str(computer_id)})

    async def _retire(self, computer_id: uuid.UUID) -> None:
        served = self.served.pop(computer_id)
        await served.client.stop()
        served.task.cancel()
        await asyncio.gather(served.task, return_exceptions=True)

    async def sync_once(self) -> None:
        wanted = set(await self.devices.list_virtual_computers())
        for computer_id, served in list(self.served.items()):
            # A client that ended (refused while its computer was disabled, say) gets a new try.
            if computer_id not in wanted or served.task.done():
                await self._retire(computer_id)
        for computer_id in sorted(wanted - self.served.keys()):
            await self._serve(computer_id)

    async def run(self) -> None:
        try:
            while True:
                try:
                    await self.sync_once()
                except ApiError as error:
                    # Devices is starting or restarting; the virtual computers wait until it answers.
                    log.warning("virtual fleet sync failed; will retry", extra={"code": error.code})
                except Exception:
                    log.warning("virtual fleet sync failed; will retry", exc_info=True)
                await asyncio.sleep(self.settings.fleet_poll_seconds)
        finally:
            # All at once: each waits for its connection to close, and one after the other they
            # could outlast the grace a supervisor gives a stopping process.
            await asyncio.gather(*(self._retire(computer_id) for computer_id in list(self.served)),
                                 return_exceptions=True)  # fmt: skip
