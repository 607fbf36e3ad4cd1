"""Wiring of the virtual-fleet process, `python -m printcloud.devices.fleet`: one process that runs
`workers/virtual_fleet.py` against the devices schema. Apart from `app.py` so that the devices
server does not load the agent client the fleet runs."""

from __future__ import annotations

import asyncio

from printcloud.core.db import Database
from printcloud.core.ops import serve_ops
from printcloud.core.service import run_until_stopped, setup_process
from printcloud.devices.app import migrate_schema
from printcloud.devices.service import DeviceService
from printcloud.devices.settings import FleetSettings
from printcloud.devices.workers.virtual_fleet import VirtualFleet


async def main() -> None:
    settings = FleetSettings.load()
    setup_process(settings)
    # The fleet reads the devices schema; migrating (idempotent, locked) spares it a start-up race.
    if settings.migrate_on_start:
        await migrate_schema(settings.database_url)
    db = Database.connect(settings.database_url, application_name=settings.service_name)
    fleet = VirtualFleet(DeviceService(db), settings)
    tasks = [fleet.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port))
    await run_until_stopped(tasks, [db.close])


if __name__ == "__main__":
    asyncio.run(main())
