"""Wiring of the virtual-fleet process, `python -m printcloud.virtual_fleet`: runs `workers/fleet.py`
against the devices schema. A package of its own so that the devices server never loads the agent
client the fleet runs."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from printcloud.core.db.database import Database
from printcloud.core.process.lifecycle import run_until_stopped, setup_process
from printcloud.core.process.service_process import check_database
from printcloud.core.telemetry.ops import serve_ops
from printcloud.devices.app import migrate_schema
from printcloud.devices.service import DeviceService
from printcloud.virtual_fleet.settings import Settings
from printcloud.virtual_fleet.workers.fleet import VirtualFleet


async def main() -> None:
    settings = Settings.load()
    setup_process(settings)
    await check_database(settings, must_answer=settings.migrate_on_start)
    # The fleet reads the devices schema; migrating (idempotent, locked) spares it a start-up race.
    if settings.migrate_on_start:
        await migrate_schema(settings.database_url)
    db = Database.connect(settings.database_url, application_name=settings.service_name)
    fleet = VirtualFleet(DeviceService(db), settings)
    tasks: list[Awaitable[Any]] = [fleet.run()]
    if settings.ops_port:
        tasks.append(await serve_ops(settings.service_name, settings.ops_host, settings.ops_port))
    await run_until_stopped(tasks, [db.close])
