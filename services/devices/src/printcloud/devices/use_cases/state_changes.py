"""The steps every devices use case takes inside its transaction: the one way a computer or a
printer changes state, each change written with its events (and any agent command) to the outbox
in the same transaction. The events a change makes are worked out here alone (`*_message`), for
these steps and for a batch of agents written set-based (`agent_batches`).

Keyed by resource id on the topics, so that one resource's events stay in order.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain import commands, events
from printcloud.devices.domain.printers import NewPrinter, PrinterUpdate, reconcile, settle_on_computer_state
from printcloud.devices.domain.reports import ReportedPrinter
from printcloud.devices.domain.states import COMPUTER_OFFLINE, computer_event_type
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.persistence.tables import outbox

COMPUTER = "computer"
PRINTER = "printer"


def scope_of(computer: ComputerRow) -> Scope:
    return Scope(computer.organization_id, computer.mode)


async def emit(session: AsyncSession, resource_id: uuid.UUID, message: Message) -> None:
    await outbox.add(session, DOMAIN_EVENTS, str(resource_id), message)


async def disconnect_agent(session: AsyncSession, computer: ComputerRow) -> None:
    await outbox.add(
        session, AGENT_COMMANDS, str(computer.id), commands.disconnect_computer(scope_of(computer), computer.id)
    )


async def set_computer_state(
    session: AsyncSession, computer: ComputerRow, state: str, values: dict[str, Any]
) -> ComputerRow:
    updated = await repository.update_computer(session, computer.id, {"state": state, **values})
    message = computer_state_message(computer, state, updated.name)
    if message is not None:
        await emit(session, computer.id, message)
    return updated


def computer_state_message(computer: ComputerRow, state: str, name: str) -> Message | None:
    """The event of `computer` moving to `state`, if the move is one users are told of."""
    event_type = computer_event_type(computer.state, state)
    if event_type is None:
        return None
    return events.computer_state_changed(scope_of(computer), event_type, computer.id, name, state)


def printer_update_messages(scope: Scope, computer_id: uuid.UUID, change: PrinterUpdate) -> list[Message]:
    """The events of one printer's change, in the order they happened."""
    printer = change.printer
    if change.revived:
        # To its users a printer coming back is a printer appearing; its new facts come with it.
        return [
            events.printer_added(scope, printer.id, computer_id, printer.name, printer.display_name, change.condition)
        ]
    messages = []
    if change.changes:
        messages.append(events.printer_updated(scope, printer.id, computer_id, change.condition, change.changes))
    if change.state_changed:
        messages.append(events.printer_state_changed(scope, printer.id, computer_id, change.condition))
    return messages


def printer_added_message(scope: Scope, printer_id: uuid.UUID, computer_id: uuid.UUID, new: NewPrinter) -> Message:
    report = new.report
    return events.printer_added(scope, printer_id, computer_id, report.name, report.os_name, new.condition)


async def _apply_printer_update(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, change: PrinterUpdate
) -> None:
    await repository.update_printer(session, change.printer.id, change.values, utcnow())
    for message in printer_update_messages(scope, computer_id, change):
        await emit(session, change.printer.id, message)


async def reconcile_printers(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, computer_state: str, reports: Sequence[ReportedPrinter]
) -> None:
    plan = reconcile(await repository.known_printers(session, computer_id), reports, computer_state)
    now = utcnow()
    for new in plan.added:
        printer_id = await repository.insert_printer(session, scope, computer_id, new.report, new.condition, now)
        await emit(session, printer_id, printer_added_message(scope, printer_id, computer_id, new))
    for change in plan.updated:
        await _apply_printer_update(session, scope, computer_id, change)
    for gone in plan.removed:
        await repository.mark_printer_removed(session, gone.id, now)
        await emit(session, gone.id, events.printer_removed(scope, gone.id, computer_id, gone.name))


async def take_offline(session: AsyncSession, computer: ComputerRow, state: str, values: dict[str, Any]) -> ComputerRow:
    """Moves a computer to `state` (not online) and settles its printers; returns the new row."""
    updated = await set_computer_state(session, computer, state, {"gateway_instance": None, **values})
    scope = scope_of(computer)
    for change in settle_on_computer_state(await repository.known_printers(session, computer.id), state):
        await _apply_printer_update(session, scope, computer.id, change)
    return updated


async def delete_computer(session: AsyncSession, computer: ComputerRow, now: datetime) -> None:
    """Soft-deletes a computer and its printers, revokes its agent credentials, disconnects it."""
    scope = scope_of(computer)
    await set_computer_state(session, computer, COMPUTER_OFFLINE, {"deleted_at": now, "gateway_instance": None})
    for printer in await repository.known_printers(session, computer.id):
        if not printer.removed:
            await repository.mark_printer_removed(session, printer.id, now)
            await emit(session, printer.id, events.printer_removed(scope, printer.id, computer.id, printer.name))
    await repository.revoke_credentials(session, computer.id, now)
    await disconnect_agent(session, computer)
