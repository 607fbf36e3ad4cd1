"""The printers jobs are created for, as devices last answered for them.

A create needs its printer's settings (enabled, capabilities, defaults, papers, computer). Asking
devices on every create cost a call to devices and a read there per job; jobs keeps devices'
answer instead and asks again once it may be out of date. The api-gateway has jobs forget a
scope's printers after it changed them through devices and before it answers, so a create that
follows a `PATCH /v1/printers/{id}` sees the change; devices' `printer.*` events that change a
printer's settings (not its condition) forget them too, for changes an agent made. Whatever
jobs was told, it asks again after `KEPT_FOR`: a change it missed (a lost event, a rollback to a
release that kept nothing and forgot nothing) lasts no longer.

Each replica also keeps the printers it read in memory, so that a create of a printer it knows
reads nothing. Another replica may have forgotten them since; the create's one statement checks
that the scope's facts are still at the generation they were read at, and a create that finds
them changed drops them from memory and reads them again.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
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
# Printers a replica keeps in memory, the longest unasked for dropped first.
MOST_IN_MEMORY = 10_000


@dataclass(frozen=True)
class KeptPrinter:
    """A printer as jobs read it, at its scope's `generation` of facts, which the create's statement
    checks is still the scope's; `until` it may be used without asking again. Shared by the creates
    that use it: read, never changed."""

    printer: devices_pb2.Printer
    generation: int
    until: datetime


class KnownPrinters:
    def __init__(self, db: Database, directory: PrinterDirectory) -> None:
        self.db = db
        self.directory = directory
        self._in_memory: dict[tuple[Scope, uuid.UUID], KeptPrinter] = {}

    async def printer(self, scope: Scope, printer_id: uuid.UUID) -> KeptPrinter:
        """The printer in `scope` as this replica keeps it, as jobs keeps it in the database, or as
        devices answers now (then kept); raises `404 not_found` when devices has no such printer in
        `scope`."""
        now = clock.now()
        key = (scope, printer_id)
        in_memory = self._in_memory.pop(key, None)
        if in_memory is not None and now < in_memory.until:
            self._in_memory[key] = in_memory
            return in_memory
        read = await printer_facts.read(self.db, scope, printer_id, now - KEPT_FOR)
        if read.printer is not None and read.filled_at is not None:
            kept = KeptPrinter(devices_pb2.Printer.FromString(read.printer), read.generation, read.filled_at + KEPT_FOR)
        else:
            printer = await self.directory.get_printer(scope, printer_id)
            await printer_facts.fill(self.db, scope, printer_id, printer.SerializeToString(), read.generation, now)
            kept = KeptPrinter(printer, read.generation, now + KEPT_FOR)
        if len(self._in_memory) >= MOST_IN_MEMORY:
            del self._in_memory[next(iter(self._in_memory))]
        self._in_memory[key] = kept
        return kept

    def drop_from_memory(self, scope: Scope) -> None:
        """Forgets what this replica keeps of `scope`'s printers: a create's statement found them
        out of date."""
        for key in [key for key in self._in_memory if key[0] == scope]:
            del self._in_memory[key]

    async def forget(self, scopes: Collection[Scope]) -> None:
        async with self.db.transaction() as session:
            await printer_facts.forget(session, scopes)
        for scope in scopes:
            self.drop_from_memory(scope)
