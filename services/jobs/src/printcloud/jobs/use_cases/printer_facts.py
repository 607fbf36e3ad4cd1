"""The printers jobs are created for, as devices last answered for them.

A create needs its printer's settings (enabled, capabilities, defaults, papers, computer). Asking
devices on every create cost a call to devices and a read there per job; jobs keeps devices'
answer instead and asks again once it may be out of date. The api-gateway has jobs forget a
scope's printers after it changed them through devices and before it answers, so a create that
follows a `PATCH /v1/printers/{id}` sees the change; devices' `printer.*` events that change a
printer's settings (not its condition) forget them too, for changes an agent made. Whatever
jobs was told, it asks again after `KEPT_FOR`: a change it missed (a lost event, a rollback to a
release that kept nothing and forgot nothing) lasts no longer.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import timedelta
from typing import Protocol

from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.jobs.persistence import printer_facts
from printcloud.jobs.use_cases import clock
from printcloud.v1 import devices_pb2


class PrinterDirectory(Protocol):
    async def get_printer(self, scope: Scope, printer_id: uuid.UUID) -> devices_pb2.Printer:
        """The printer in `scope`; raises `404 not_found` when it is not there."""
        ...


KEPT_FOR = timedelta(minutes=1)


class KnownPrinters:
    def __init__(self, db: Database, directory: PrinterDirectory) -> None:
        self.db = db
        self.directory = directory

    async def printer(self, scope: Scope, printer_id: uuid.UUID) -> devices_pb2.Printer:
        """The printer in `scope` as kept, or as devices answers now (then kept); raises
        `404 not_found` when devices has no such printer in `scope`."""
        now = clock.now()
        generation, kept = await printer_facts.read(self.db, scope, printer_id, now - KEPT_FOR)
        if kept is not None:
            return devices_pb2.Printer.FromString(kept)
        printer = await self.directory.get_printer(scope, printer_id)
        await printer_facts.fill(self.db, scope, printer_id, printer.SerializeToString(), generation, now)
        return printer

    async def forget(self, scopes: Collection[Scope]) -> None:
        async with self.db.transaction() as session:
            await printer_facts.forget(session, scopes)
