"""The devices use cases: each one a transaction that applies the domain rules to stored computers
and printers, and the only place that writes events and agent commands (to the outbox, in the
same transaction as the change).

Agent-lifecycle use cases lock the computer row, so connect, disconnect and reports of one
computer apply one after the other.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import ApiError, invalid, not_found
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain import commands, events
from printcloud.devices.domain.computer_settings import enrolment_names
from printcloud.devices.domain.credentials import (
    hash_agent_credential,
    looks_like_agent_credential,
    mint_agent_credential,
)
from printcloud.devices.domain.printer_settings import PrinterSettings, checked_values, settings_changes
from printcloud.devices.domain.printers import PrinterUpdate, reconcile, settle_on_computer_state
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import (
    COMPUTER_OFFLINE,
    PrinterCondition,
    computer_event_type,
    computer_state_when_connected,
    computer_state_when_disconnected,
    computer_state_when_switched,
    disconnect_applies,
)
from printcloud.devices.domain.virtual_computer import (
    VIRTUAL_COMPUTER_MODE,
    VIRTUAL_COMPUTER_NAME,
    virtual_computer_report,
    virtual_printer_reports,
)
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.tables import outbox, processed_messages

COMPUTER = "computer"
PRINTER = "printer"
CONSUMER_GROUP = "devices"


def _found(row: Any, what: str) -> Any:
    if row is None:
        raise not_found(what)
    return row


def _scope_of(computer: Any) -> Scope:
    return Scope(computer.organization_id, computer.mode)


async def _emit(session: AsyncSession, resource_id: uuid.UUID, message: Message) -> None:
    # Keyed by resource id so that one resource's events stay in order on the topic.
    await outbox.add(session, DOMAIN_EVENTS, str(resource_id), message)


async def _disconnect_agent(session: AsyncSession, computer: Any) -> None:
    await outbox.add(
        session, AGENT_COMMANDS, str(computer.id), commands.disconnect_computer(_scope_of(computer), computer.id)
    )


async def _set_computer_state(session: AsyncSession, computer: Any, state: str, values: dict[str, Any]) -> Any:
    updated = await repository.update_computer(session, computer.id, {"state": state, **values})
    event_type = computer_event_type(computer.state, state)
    if event_type is not None:
        await _emit(
            session,
            computer.id,
            events.computer_state_changed(_scope_of(computer), event_type, computer.id, updated.name, state),
        )
    return updated


async def _apply_printer_update(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, change: PrinterUpdate
) -> None:
    printer = change.printer
    await repository.update_printer(session, printer.id, change.values, utcnow())
    if change.revived:
        # To its users a printer coming back is a printer appearing; its new facts come with it.
        await _emit(
            session,
            printer.id,
            events.printer_added(scope, printer.id, computer_id, printer.name, printer.display_name, change.condition),
        )
        return
    if change.changes:
        await _emit(
            session,
            printer.id,
            events.printer_updated(scope, printer.id, computer_id, change.condition, change.changes),
        )
    if change.state_changed:
        await _emit(session, printer.id, events.printer_state_changed(scope, printer.id, computer_id, change.condition))


async def _reconcile_printers(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, computer_state: str, reports: Sequence[ReportedPrinter]
) -> None:
    plan = reconcile(await repository.known_printers(session, computer_id), reports, computer_state)
    now = utcnow()
    for new in plan.added:
        report = new.report
        printer_id = await repository.insert_printer(session, scope, computer_id, report, new.condition, now)
        await _emit(
            session,
            printer_id,
            events.printer_added(scope, printer_id, computer_id, report.name, report.os_name, new.condition),
        )
    for change in plan.updated:
        await _apply_printer_update(session, scope, computer_id, change)
    for gone in plan.removed:
        await repository.mark_printer_removed(session, gone.id, now)
        await _emit(session, gone.id, events.printer_removed(scope, gone.id, computer_id, gone.name))


async def _take_offline(session: AsyncSession, computer: Any, state: str, values: dict[str, Any]) -> Any:
    """Moves a computer to `state` (not online) and settles its printers; returns the new row."""
    updated = await _set_computer_state(session, computer, state, {"gateway_instance": None, **values})
    scope = _scope_of(computer)
    for change in settle_on_computer_state(await repository.known_printers(session, computer.id), state):
        await _apply_printer_update(session, scope, computer.id, change)
    return updated


async def _issue_agent_credential(session: AsyncSession, computer: Any, *, replace: bool) -> str:
    if replace:
        await repository.revoke_credentials(session, computer.id, utcnow())
    credential = mint_agent_credential()
    await repository.insert_credential(
        session, computer.id, _scope_of(computer), hash_agent_credential(credential), utcnow()
    )
    return credential


async def create_enrolled_computer(session: AsyncSession, scope: Scope, name: str, hostname: str) -> tuple[Any, str]:
    """A new computer in `scope` and its first agent credential (plaintext), whichever way it enrols."""
    name, hostname = enrolment_names(name, hostname)
    computer = await repository.insert_computer(session, scope, name or hostname, hostname, utcnow())
    return computer, await _issue_agent_credential(session, computer, replace=False)


async def _ensure_virtual_computer(session: AsyncSession, organization_id: uuid.UUID) -> Any:
    existing = await repository.virtual_computer_of(session, organization_id)
    if existing is not None:
        return existing
    scope = Scope(organization_id, VIRTUAL_COMPUTER_MODE)
    created = await repository.insert_virtual_computer(
        session, scope, VIRTUAL_COMPUTER_NAME, virtual_computer_report(), utcnow()
    )
    if created is None:
        return await repository.virtual_computer_of(session, organization_id)
    await _reconcile_printers(session, scope, created.id, created.state, virtual_printer_reports())
    return created


class DeviceService:
    def __init__(self, db: Database) -> None:
        self.db = db

    # --- Tenant reads ----------------------------------------------------------------------------

    async def list_computers(self, scope: Scope, page: PageRequest) -> Page[Any]:
        async with self.db.read() as session:
            return await repository.list_computers(session, scope, page)

    async def get_computer(self, scope: Scope, computer_id: uuid.UUID) -> Any:
        return _found(await repository.get_computer(self.db, scope, computer_id), COMPUTER)

    async def list_printers(self, scope: Scope, page: PageRequest, computer_id: uuid.UUID | None = None) -> Page[Any]:
        """The printers in `scope`, or those of one computer (404 when it is not in `scope`)."""
        if computer_id is not None:
            _found(await repository.get_computer(self.db, scope, computer_id), COMPUTER)
        return await repository.list_printers(self.db, scope, page, computer_id)

    async def get_printer(self, scope: Scope, printer_id: uuid.UUID) -> Any:
        return _found(await repository.get_printer(self.db, scope, printer_id), PRINTER)

    async def list_virtual_computers(self) -> list[Any]:
        """Every organization's virtual computer, for the fleet process that serves them."""
        async with self.db.read() as session:
            return await repository.list_virtual_computers(session)

    # --- Enrolment and credentials ---------------------------------------------------------------

    async def enroll_computer(self, scope: Scope, name: str, hostname: str) -> tuple[Any, str]:
        """Creates a computer in `scope` and returns it with its first agent credential (plaintext)."""
        async with self.db.transaction() as session:
            return await create_enrolled_computer(session, scope, name, hostname)

    async def issue_virtual_agent_credential(self, computer_id: uuid.UUID) -> str:
        """A fresh credential (plaintext, shown once) for a virtual computer's agent.

        The virtual fleet mints one at every start, so the computer's earlier ones are revoked: they
        must not pile up as live secrets. Any other computer is refused: its credential is its
        owner's, handed out only at enrolment.
        """
        async with self.db.transaction() as session:
            # Locked, so that two issues at once cannot both leave a credential live.
            computer = _found(await repository.lock_computer(session, computer_id), COMPUTER)
            if not computer.is_virtual:
                raise ApiError("forbidden", "Only a test-mode virtual computer's agent credential is issued here.")
            return await _issue_agent_credential(session, computer, replace=True)

    async def authenticate_agent(self, credential: str) -> repository.AgentRow:
        """The computer a credential names: (computer_id, organization_id, mode, disabled)."""
        unauthorized = ApiError("unauthorized", "Unknown or revoked agent credential.")
        if not looks_like_agent_credential(credential):
            raise unauthorized
        async with self.db.read() as session:
            row = await repository.find_agent(session, hash_agent_credential(credential))
        if row is None:
            raise unauthorized
        return row

    # --- Agent lifecycle ---------------------------------------------------------------------------

    async def agent_connected(
        self,
        computer_id: uuid.UUID,
        report: ReportedComputer,
        reports: Sequence[ReportedPrinter],
        gateway_instance: str,
    ) -> Any:
        """Records a new agent connection and its full report; returns the updated computer."""
        async with self.db.transaction() as session:
            computer = _found(await repository.lock_computer(session, computer_id), COMPUTER)
            state = computer_state_when_connected(computer.disabled)
            updated = await _set_computer_state(
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
            await _reconcile_printers(session, _scope_of(computer), computer_id, state, reports)
        return updated

    async def agents_seen(self, computer_ids: Sequence[uuid.UUID]) -> None:
        """A gateway replica still holds these computers' agents. One that was deleted meanwhile
        is skipped: its agent is being disconnected, and the others' beat must not fail for it."""
        async with self.db.transaction() as session:
            await repository.touch_computers(session, computer_ids, utcnow())

    async def agent_disconnected(self, computer_id: uuid.UUID, gateway_instance: str) -> bool:
        """Marks the computer and its printers offline; False when another replica holds it now."""
        async with self.db.transaction() as session:
            computer = _found(await repository.lock_computer(session, computer_id), COMPUTER)
            if not disconnect_applies(computer.gateway_instance, gateway_instance):
                return False
            await _take_offline(session, computer, computer_state_when_disconnected(computer.disabled), {})
        return True

    async def report_printers(self, computer_id: uuid.UUID, reports: Sequence[ReportedPrinter]) -> list[Any]:
        """Applies a full printer report of a connected agent; returns the computer's printers."""
        async with self.db.transaction() as session:
            computer = _found(await repository.lock_computer(session, computer_id), COMPUTER)
            await _reconcile_printers(session, _scope_of(computer), computer_id, computer.state, reports)
            return await repository.printers_of_computer(session, computer_id)

    # --- Administration (PATCH and DELETE of the public API) ---------------------------------------

    async def update_computer(
        self, scope: Scope, computer_id: uuid.UUID, name: str | None, enabled: bool | None
    ) -> Any:
        """Renames and disables or re-enables a computer; returns it.

        Disabling disconnects its agent at once (and AuthenticateAgent refuses it until re-enabled);
        re-enabling leaves it offline until the agent's next connection makes it online.
        """
        async with self.db.transaction() as session:
            computer = _found(await repository.lock_computer_in_scope(session, scope, computer_id), COMPUTER)
            values: dict[str, Any] = {} if name is None else {"name": name}
            if enabled is None or enabled != computer.disabled:
                return await _set_computer_state(session, computer, computer.state, values)
            state = computer_state_when_switched(enabled)
            updated = await _take_offline(session, computer, state, {**values, "disabled": not enabled})
            if not enabled:
                await _disconnect_agent(session, computer)
        return updated

    async def delete_computer(self, scope: Scope, computer_id: uuid.UUID) -> None:
        """Soft-deletes a computer and its printers, revokes its agent credentials, disconnects it."""
        async with self.db.transaction() as session:
            computer = _found(await repository.lock_computer_in_scope(session, scope, computer_id), COMPUTER)
            if computer.is_virtual:
                raise ApiError("conflict", "The test-mode virtual computer cannot be deleted.")
            await _delete_computer(session, computer, utcnow())

    async def update_printer(self, scope: Scope, printer_id: uuid.UUID, settings: PrinterSettings) -> Any:
        """Applies the settings of a PATCH; emits `printer.updated` with what really changed."""
        async with self.db.transaction() as session:
            current = _found(await repository.lock_printer_in_scope(session, scope, printer_id), PRINTER)
            values = checked_values(settings)
            changes = settings_changes(current._mapping, values)
            if changes:
                await repository.update_printer(session, printer_id, values, utcnow())
                condition = PrinterCondition(current.state, tuple(current.state_reasons), current.state_detail)
                await _emit(
                    session,
                    printer_id,
                    events.printer_updated(scope, printer_id, current.computer_id, condition, changes),
                )
        # Read once committed: the printer as it stands now, the change included.
        return await self.get_printer(scope, printer_id)

    # --- Agent-gateway replicas -------------------------------------------------------------------

    async def record_gateway_heartbeat(self, gateway_instance: str) -> bool:
        """Records that a replica is alive; False when devices had no live record of it (never seen,
        or presumed dead and swept)."""
        if not gateway_instance:
            raise invalid("`gateway_instance` is required.")
        async with self.db.transaction() as session:
            return await repository.record_gateway_heartbeat(session, gateway_instance, utcnow())

    async def sweep_silent_gateways(self, now: datetime, timeout: timedelta) -> int:
        """Marks offline the online computers whose replica has not heartbeated within `timeout`, and
        forgets those replicas; returns how many computers went offline."""
        stale_before = now - timeout
        async with self.db.transaction() as session:
            await repository.forget_silent_gateways(session, stale_before)
            orphans = await repository.lock_orphaned_computers(session, stale_before)
            for computer in orphans:
                await _take_offline(session, computer, computer_state_when_disconnected(computer.disabled), {})
        return len(orphans)

    # --- Test mode's virtual computer --------------------------------------------------------------

    async def ensure_virtual_computer(self, organization_id: uuid.UUID) -> Any:
        """The organization's virtual computer, created offline with its four printers if missing."""
        async with self.db.transaction() as session:
            return await _ensure_virtual_computer(session, organization_id)

    async def organization_created(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> Any:
        """`ensure_virtual_computer` once per message; None when the message was handled before."""
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return None
            return await _ensure_virtual_computer(session, organization_id)

    async def organization_deleted(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> int:
        """Every computer of a deleted organization, of both modes and the virtual one included,
        deleted as a DELETE deletes one (agents disconnected, credentials revoked), once per
        message; how many were deleted."""
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return 0
            found = await repository.lock_computers_of_organization(session, organization_id)
            now = utcnow()
            for computer in found:
                await _delete_computer(session, computer, now)
            return len(found)


async def _delete_computer(session: AsyncSession, computer: Any, now: datetime) -> None:
    scope = _scope_of(computer)
    await _set_computer_state(session, computer, COMPUTER_OFFLINE, {"deleted_at": now, "gateway_instance": None})
    for printer in await repository.known_printers(session, computer.id):
        if not printer.removed:
            await repository.mark_printer_removed(session, printer.id, now)
            await _emit(session, printer.id, events.printer_removed(scope, printer.id, computer.id, printer.name))
    await repository.revoke_credentials(session, computer.id, now)
    await _disconnect_agent(session, computer)
