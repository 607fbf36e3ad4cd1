"""The virtual fleet: one virtual agent per organization's test-mode computer.

Each agent is the real `printcloud.agent` client with the virtual backend, connected to the
agent-gateway over WebSocket like any agent, so test jobs take the live code path. The fleet
finds new virtual computers by reading the devices schema every few seconds.

Run exactly one fleet process: two would connect the same computers and replace each other's
connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

from printcloud.agent.backends.print_ledger import PrintLedger
from printcloud.agent.backends.virtual import VirtualBackend
from printcloud.agent.backends.virtual_printers import VIRTUAL_COMPUTER
from printcloud.agent.client import AgentClient
from printcloud.core.db import Database
from printcloud.core.ops import serve_ops
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.core.settings import CommonSettings
from printcloud.devices.app import migrate_schema
from printcloud.devices.persistence.repository import issue_agent_credential, list_virtual_computers

log = logging.getLogger(__name__)


class FleetSettings(CommonSettings):
    service_name: str = "virtual-fleet"
    agent_gateway_url: str = "http://127.0.0.1:8081"
    fleet_poll_seconds: float = 2.0
    # The virtual printer's two steps; with delivery overhead a test job takes about 3 seconds.
    virtual_printing_after_seconds: float = 1.4
    virtual_done_after_seconds: float = 1.4
    # A file the virtual printers append each job they print to (`PrintLedger`); empty: none.
    # The fault suite sets it to count prints per job.
    virtual_print_ledger: str = ""


@dataclass
class _Served:
    client: AgentClient
    task: asyncio.Task[None]


class VirtualFleet:
    def __init__(self, db: Database, settings: FleetSettings) -> None:
        self.db = db
        self.settings = settings
        self.served: dict[uuid.UUID, _Served] = {}

    async def _serve(self, computer_id: uuid.UUID) -> None:
        async with self.db.transaction() as session:
            credential = await issue_agent_credential(session, computer_id, replace=True)
        client = AgentClient(
            self.settings.agent_gateway_url,
            credential,
            VirtualBackend(
                printing_after=self.settings.virtual_printing_after_seconds,
                done_after=self.settings.virtual_done_after_seconds,
                print_ledger=PrintLedger(Path(ledger)) if (ledger := self.settings.virtual_print_ledger) else None,
            ),
            VIRTUAL_COMPUTER,
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
        async with self.db.read() as session:
            wanted = {row.id for row in await list_virtual_computers(session)}
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
                except Exception:
                    log.warning("virtual fleet sync failed; will retry", exc_info=True)
                await asyncio.sleep(self.settings.fleet_poll_seconds)
        finally:
            for computer_id in list(self.served):
                with contextlib.suppress(Exception):
                    await self._retire(computer_id)


async def main() -> None:
    settings = FleetSettings.load()
    setup_process(settings)
    # The fleet reads the devices schema; migrating (idempotent, locked) spares it a start-up race.
    if settings.migrate_on_start:
        await migrate_schema(settings.database_url)
    db = Database.connect(settings.database_url, application_name=settings.service_name)
    fleet = VirtualFleet(db, settings)
    tasks = [fleet.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port))
    await run_until_stopped(tasks, [db.close])


if __name__ == "__main__":
    asyncio.run(main())
