"""Agent connections, as the agent-gateway reports them: connects with their full report, beats,
disconnects and printer reports.

Each locks the computer row, so connect, disconnect and reports of one computer apply one after
the other.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from printcloud.contracts.errors import found
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import (
    computer_state_when_connected,
    computer_state_when_disconnected,
    disconnect_applies,
)
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow, PrinterRow
from printcloud.devices.use_cases.state_changes import (
    COMPUTER,
    reconcile_printers,
    scope_of,
    set_computer_state,
    take_offline,
)


@dataclass(frozen=True)
class Agents:
    db: Database

    async def agent_connected(
        self,
        computer_id: uuid.UUID,
        report: ReportedComputer,
        reports: Sequence[ReportedPrinter],
        gateway_instance: str,
    ) -> ComputerRow:
        """Records a new agent connection and its full report; returns the updated computer."""
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer(session, computer_id), COMPUTER)
            state = computer_state_when_connected(computer.disabled)
            updated = await set_computer_state(
                session,
                computer,
                state,
                {
                    "hostname": report.hostname,
                    "os": report.os,
                    "os_version": report.os_version,
                    "arch": report.arch,
                    "agent_version": report.agent_version,
                    "last_seen_at": utcnow(),
                    "gateway_instance": gateway_instance,
                },
            )
            await reconcile_printers(session, scope_of(computer), computer_id, state, reports)
        return updated

    async def agents_seen(self, computer_ids: Sequence[uuid.UUID]) -> None:
        """A gateway replica still holds these computers' agents. One that was deleted meanwhile
        is skipped: its agent is being disconnected, and the others' beat must not fail for it."""
        async with self.db.transaction() as session:
            await repository.touch_computers(session, computer_ids, utcnow())

    async def agent_disconnected(self, computer_id: uuid.UUID, gateway_instance: str) -> bool:
        """Marks the computer and its printers offline; False when another replica holds it now."""
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer(session, computer_id), COMPUTER)
            if not disconnect_applies(computer.gateway_instance, gateway_instance):
                return False
            await take_offline(session, computer, computer_state_when_disconnected(computer.disabled), {})
        return True

    async def report_printers(self, computer_id: uuid.UUID, reports: Sequence[ReportedPrinter]) -> list[PrinterRow]:
        """Applies a full printer report of a connected agent; returns the computer's printers."""
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer(session, computer_id), COMPUTER)
            await reconcile_printers(session, scope_of(computer), computer_id, computer.state, reports)
            return await repository.printers_of_computer(session, computer_id)
