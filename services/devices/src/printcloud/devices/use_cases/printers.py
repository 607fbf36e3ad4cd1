"""Printers as their organization manages them: reading them and changing the settings users own."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass

from printcloud.contracts.errors import found
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain import events
from printcloud.devices.domain.printer_settings import PrinterSettings, checked_values, settings_changes
from printcloud.devices.domain.states import PrinterCondition
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import PrinterRow
from printcloud.devices.use_cases.state_changes import COMPUTER, PRINTER, emit


@dataclass(frozen=True)
class Printers:
    db: Database

    async def list_printers(
        self, scope: Scope, page: PageRequest, computer_id: uuid.UUID | None = None
    ) -> Page[PrinterRow]:
        """The printers in `scope`, or those of one computer (404 when it is not in `scope`)."""
        if computer_id is not None:
            found(await repository.get_computer(self.db, scope, computer_id), COMPUTER)
        return await repository.list_printers(self.db, scope, page, computer_id)

    async def get_printer(self, scope: Scope, printer_id: uuid.UUID) -> PrinterRow:
        return found(await repository.get_printer(self.db, scope, printer_id), PRINTER)

    async def update_printer(self, scope: Scope, printer_id: uuid.UUID, settings: PrinterSettings) -> PrinterRow:
        """Applies the settings of a PATCH; emits `printer.updated` with what really changed."""
        async with self.db.transaction() as session:
            current = found(await repository.lock_printer_in_scope(session, scope, printer_id), PRINTER)
            values = checked_values(settings)
            changes = settings_changes(asdict(current), values)
            if changes:
                await repository.update_printer(session, printer_id, values, utcnow())
                condition = PrinterCondition(current.state, tuple(current.state_reasons), current.state_detail)
                await emit(
                    session,
                    printer_id,
                    events.printer_updated(scope, printer_id, current.computer_id, condition, changes),
                )
        # Read once committed: the printer as it stands now, the change included.
        return await self.get_printer(scope, printer_id)
