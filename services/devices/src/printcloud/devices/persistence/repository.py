"""Every read and write of the devices schema. Scoping lives here and nowhere else.

Tenant reads take a `Scope` and filter on its organization and mode, hiding deleted computers and
removed printers: a row outside the scope is "not found". Agent-lifecycle writes are addressed
by computer id only, because the agent-gateway has authenticated the agent's credential, which
names exactly one computer. Each change writes its events to the outbox in the caller's
transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.core.errors import ApiError, not_found
from printcloud.core.ids import uuid7
from printcloud.core.messages import Message
from printcloud.core.paging import Page, PageRequest, fetch_page
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.core.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.devices.domain import commands, events
from printcloud.devices.domain.credentials import (
    hash_agent_credential,
    looks_like_agent_credential,
    mint_agent_credential,
)
from printcloud.devices.domain.printer_settings import PrinterSettings, checked_values, settings_changes
from printcloud.devices.domain.printers import KnownPrinter, PrinterUpdate, reconcile, settle_on_computer_state
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import (
    COMPUTER_OFFLINE,
    COMPUTER_ONLINE,
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
from printcloud.devices.persistence.tables import (
    agent_credentials,
    computers,
    gateway_instances,
    outbox,
    printers,
)

# Selects are of one Bundle because `fetch_page` reads `.scalars()`: each item is then a whole row.
# A printer row carries what the public shape needs of its computer.
_printer_with_computer = Bundle(
    "printer",
    *printers.c,
    computers.c.os.label("computer_os"),
    computers.c.is_virtual.label("computer_is_virtual"),
)
_computer = Bundle("computer", *computers.c)


def _computer_in_scope(scope: Scope) -> ColumnElement[bool]:
    return and_(
        computers.c.organization_id == scope.organization_id,
        computers.c.mode == scope.mode,
        computers.c.deleted_at.is_(None),
    )


def _printer_in_scope(scope: Scope) -> ColumnElement[bool]:
    # The computer's condition too: a deleted computer hides its printers even before they are marked.
    return and_(
        printers.c.organization_id == scope.organization_id,
        printers.c.mode == scope.mode,
        printers.c.removed_at.is_(None),
        _computer_in_scope(scope),
    )


def _scope_of(computer: Any) -> Scope:
    return Scope(computer.organization_id, computer.mode)


async def _emit(session: AsyncSession, resource_id: uuid.UUID, message: Message) -> None:
    # Keyed by resource id so that one resource's events stay in order on the topic.
    await outbox.add(session, DOMAIN_EVENTS, str(resource_id), message)


# --- Tenant reads ----------------------------------------------------------------------------


async def list_computers(session: AsyncSession, scope: Scope, page: PageRequest) -> Page[Any]:
    return await fetch_page(session, select(_computer).where(_computer_in_scope(scope)), computers.c.id, page)


async def get_computer(session: AsyncSession, scope: Scope, computer_id: uuid.UUID) -> Any:
    row = (
        await session.execute(select(_computer).where(_computer_in_scope(scope), computers.c.id == computer_id))
    ).scalar()
    if row is None:
        raise not_found("computer")
    return row


async def list_printers(
    session: AsyncSession, scope: Scope, page: PageRequest, computer_id: uuid.UUID | None = None
) -> Page[Any]:
    query = select(_printer_with_computer).join(computers, printers.c.computer_id == computers.c.id)
    query = query.where(_printer_in_scope(scope))
    if computer_id is not None:
        await get_computer(session, scope, computer_id)
        query = query.where(printers.c.computer_id == computer_id)
    return await fetch_page(session, query, printers.c.id, page)


async def get_printer(session: AsyncSession, scope: Scope, printer_id: uuid.UUID) -> Any:
    query = (
        select(_printer_with_computer)
        .join(computers, printers.c.computer_id == computers.c.id)
        .where(_printer_in_scope(scope), printers.c.id == printer_id)
    )
    row = (await session.execute(query)).scalar()
    if row is None:
        raise not_found("printer")
    return row


async def list_virtual_computers(session: AsyncSession) -> list[Any]:
    """Every organization's virtual computer, for the fleet process that serves them."""
    query = select(_computer).where(computers.c.is_virtual, computers.c.deleted_at.is_(None)).order_by(computers.c.id)
    return list((await session.execute(query)).scalars().all())


# --- Enrolment and credentials ---------------------------------------------------------------


async def enroll_computer(session: AsyncSession, scope: Scope, name: str, hostname: str) -> tuple[Any, str]:
    """Creates a computer in `scope` and returns it with its first agent credential (plaintext)."""
    computer = (
        await session.execute(
            computers.insert()
            .values(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                name=name or hostname,
                hostname=hostname,
                os="",
                os_version="",
                arch="",
                agent_version="",
                state=COMPUTER_OFFLINE,
                is_virtual=False,
                disabled=False,
                created_at=utcnow(),
            )
            .returning(*computers.c)
        )
    ).one()
    credential = await issue_agent_credential(session, computer.id)
    return computer, credential


async def issue_agent_credential(session: AsyncSession, computer_id: uuid.UUID, *, replace: bool = False) -> str:
    """Mints and stores a new credential for a computer; returns the plaintext, shown once.

    `replace` revokes the computer's other credentials first: the virtual fleet mints a fresh one
    at every start, and the old ones must not pile up as live secrets.
    """
    computer = (
        await session.execute(
            select(computers.c.organization_id, computers.c.mode).where(
                computers.c.id == computer_id, computers.c.deleted_at.is_(None)
            )
        )
    ).first()
    if computer is None:
        raise not_found("computer")
    if replace:
        await session.execute(
            update(agent_credentials)
            .where(agent_credentials.c.computer_id == computer_id, agent_credentials.c.revoked_at.is_(None))
            .values(revoked_at=utcnow())
        )
    credential = mint_agent_credential()
    await session.execute(
        agent_credentials.insert().values(
            id=uuid7(),
            computer_id=computer_id,
            organization_id=computer.organization_id,
            mode=computer.mode,
            token_hash=hash_agent_credential(credential),
            created_at=utcnow(),
        )
    )
    return credential


async def authenticate_agent(session: AsyncSession, credential: str) -> Row[Any]:
    """The computer a credential names: (computer_id, organization_id, mode, disabled)."""
    unauthorized = ApiError("unauthorized", "Unknown or revoked agent credential.")
    if not looks_like_agent_credential(credential):
        raise unauthorized
    row = (
        await session.execute(
            select(
                computers.c.id.label("computer_id"), computers.c.organization_id, computers.c.mode, computers.c.disabled
            )
            .join(agent_credentials, agent_credentials.c.computer_id == computers.c.id)
            .where(
                agent_credentials.c.token_hash == hash_agent_credential(credential),
                agent_credentials.c.revoked_at.is_(None),
                computers.c.deleted_at.is_(None),
            )
        )
    ).first()
    if row is None:
        raise unauthorized
    return row


# --- Agent lifecycle ---------------------------------------------------------------------------


async def _lock_computer(session: AsyncSession, computer_id: uuid.UUID) -> Any:
    # Row lock: connect, disconnect and reports of one computer apply one after the other.
    row = (
        await session.execute(
            select(computers).where(computers.c.id == computer_id, computers.c.deleted_at.is_(None)).with_for_update()
        )
    ).first()
    if row is None:
        raise not_found("computer")
    return row


async def _set_computer_state(session: AsyncSession, computer: Any, state: str, values: dict[str, Any]) -> Any:
    updated = (
        await session.execute(
            update(computers).where(computers.c.id == computer.id).values(state=state, **values).returning(*computers.c)
        )
    ).one()
    event_type = computer_event_type(computer.state, state)
    if event_type is not None:
        await _emit(
            session,
            computer.id,
            events.computer_state_changed(_scope_of(computer), event_type, computer.id, updated.name, state),
        )
    return updated


async def _known_printers(session: AsyncSession, computer_id: uuid.UUID) -> list[KnownPrinter]:
    rows = (
        await session.execute(select(printers).where(printers.c.computer_id == computer_id).order_by(printers.c.id))
    ).all()
    return [
        KnownPrinter(
            id=r.id,
            name=r.name,
            display_name=r.display_name,
            os_name=r.os_name,
            description=r.description,
            is_default=r.is_default,
            state=r.state,
            state_detail=r.state_detail,
            capabilities=r.capabilities,
            removed=r.removed_at is not None,
        )
        for r in rows
    ]


async def _apply_printer_update(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, change: PrinterUpdate
) -> None:
    printer = change.printer
    await session.execute(
        update(printers).where(printers.c.id == printer.id).values(**change.values, updated_at=utcnow())
    )
    if change.revived:
        # To its users a printer coming back is a printer appearing; its new facts come with it.
        await _emit(
            session,
            printer.id,
            events.printer_added(scope, printer.id, computer_id, printer.name, printer.display_name),
        )
        return
    if change.changes:
        await _emit(session, printer.id, events.printer_updated(scope, printer.id, computer_id, change.changes))
    if change.state_changed:
        state, detail = change.values["state"], change.values["state_detail"]
        await _emit(session, printer.id, events.printer_state_changed(scope, printer.id, computer_id, state, detail))


async def _reconcile_printers(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, computer_state: str, reports: Sequence[ReportedPrinter]
) -> None:
    plan = reconcile(await _known_printers(session, computer_id), reports, computer_state)
    now = utcnow()
    for new in plan.added:
        report = new.report
        printer_id = uuid7()
        await session.execute(
            printers.insert().values(
                id=printer_id,
                organization_id=scope.organization_id,
                mode=scope.mode,
                computer_id=computer_id,
                name=report.name,
                os_name=report.os_name,
                description=report.description,
                display_name=report.os_name,
                enabled=True,
                is_default=report.is_default,
                state=new.state,
                state_detail=new.state_detail,
                capabilities=report.capabilities,
                default_options=report.default_options,
                custom_papers=[],
                created_at=now,
                updated_at=now,
            )
        )
        await _emit(
            session, printer_id, events.printer_added(scope, printer_id, computer_id, report.name, report.os_name)
        )
    for change in plan.updated:
        await _apply_printer_update(session, scope, computer_id, change)
    for gone in plan.removed:
        await session.execute(update(printers).where(printers.c.id == gone.id).values(removed_at=now, updated_at=now))
        await _emit(session, gone.id, events.printer_removed(scope, gone.id, computer_id, gone.name))


async def _printers_of_computer(session: AsyncSession, computer_id: uuid.UUID) -> list[Any]:
    query = (
        select(_printer_with_computer)
        .join(computers, printers.c.computer_id == computers.c.id)
        .where(printers.c.computer_id == computer_id, printers.c.removed_at.is_(None))
        .order_by(printers.c.id)
    )
    return list((await session.execute(query)).scalars().all())


async def agent_connected(
    session: AsyncSession,
    computer_id: uuid.UUID,
    report: ReportedComputer,
    reports: Sequence[ReportedPrinter],
    gateway_instance: str,
) -> Any:
    """Records a new agent connection and its full report; returns the updated computer."""
    computer = await _lock_computer(session, computer_id)
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


async def agent_seen(session: AsyncSession, computer_id: uuid.UUID) -> None:
    result = await session.execute(
        update(computers)
        .where(computers.c.id == computer_id, computers.c.deleted_at.is_(None))
        .values(last_seen_at=utcnow())
        .returning(computers.c.id)
    )
    if result.first() is None:
        raise not_found("computer")


async def _take_offline(session: AsyncSession, computer: Any, state: str, values: dict[str, Any]) -> Any:
    """Moves a computer to `state` (not online) and settles its printers; returns the new row."""
    updated = await _set_computer_state(session, computer, state, {"gateway_instance": None, **values})
    scope = _scope_of(computer)
    for change in settle_on_computer_state(await _known_printers(session, computer.id), state):
        await _apply_printer_update(session, scope, computer.id, change)
    return updated


async def agent_disconnected(session: AsyncSession, computer_id: uuid.UUID, gateway_instance: str) -> bool:
    """Marks the computer and its printers offline; False when another replica holds it now."""
    computer = await _lock_computer(session, computer_id)
    if not disconnect_applies(computer.gateway_instance, gateway_instance):
        return False
    await _take_offline(session, computer, computer_state_when_disconnected(computer.disabled), {})
    return True


async def report_printers(
    session: AsyncSession, computer_id: uuid.UUID, reports: Sequence[ReportedPrinter]
) -> list[Any]:
    """Applies a full printer report of a connected agent; returns the computer's printers."""
    computer = await _lock_computer(session, computer_id)
    await _reconcile_printers(session, _scope_of(computer), computer_id, computer.state, reports)
    return await _printers_of_computer(session, computer_id)


# --- Administration (PATCH and DELETE of the public API) ---------------------------------------


async def _lock_computer_in_scope(session: AsyncSession, scope: Scope, computer_id: uuid.UUID) -> Any:
    query = select(computers).where(_computer_in_scope(scope), computers.c.id == computer_id).with_for_update()
    row = (await session.execute(query)).first()
    if row is None:
        raise not_found("computer")
    return row


async def _disconnect_agent(session: AsyncSession, computer: Any) -> None:
    await outbox.add(
        session, AGENT_COMMANDS, str(computer.id), commands.disconnect_computer(_scope_of(computer), computer.id)
    )


async def update_computer(
    session: AsyncSession, scope: Scope, computer_id: uuid.UUID, name: str | None, enabled: bool | None
) -> Any:
    """Renames and disables or re-enables a computer; returns it.

    Disabling disconnects its agent at once (and AuthenticateAgent refuses it until re-enabled);
    re-enabling leaves it offline until the agent's next connection makes it online.
    """
    computer = await _lock_computer_in_scope(session, scope, computer_id)
    values: dict[str, Any] = {} if name is None else {"name": name}
    if enabled is None or enabled != computer.disabled:
        return await _set_computer_state(session, computer, computer.state, values)
    state = computer_state_when_switched(enabled)
    updated = await _take_offline(session, computer, state, {**values, "disabled": not enabled})
    if not enabled:
        await _disconnect_agent(session, computer)
    return updated


async def delete_computer(session: AsyncSession, scope: Scope, computer_id: uuid.UUID) -> None:
    """Soft-deletes a computer and its printers, revokes its agent credentials, disconnects it."""
    computer = await _lock_computer_in_scope(session, scope, computer_id)
    if computer.is_virtual:
        raise ApiError("conflict", "The test-mode virtual computer cannot be deleted.")
    now = utcnow()
    await _set_computer_state(session, computer, COMPUTER_OFFLINE, {"deleted_at": now, "gateway_instance": None})
    for printer in await _known_printers(session, computer_id):
        if not printer.removed:
            await session.execute(
                update(printers).where(printers.c.id == printer.id).values(removed_at=now, updated_at=now)
            )
            await _emit(session, printer.id, events.printer_removed(scope, printer.id, computer_id, printer.name))
    await session.execute(
        update(agent_credentials)
        .where(agent_credentials.c.computer_id == computer_id, agent_credentials.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    await _disconnect_agent(session, computer)


async def update_printer(session: AsyncSession, scope: Scope, printer_id: uuid.UUID, settings: PrinterSettings) -> Any:
    """Applies the settings of a PATCH; emits `printer.updated` with what really changed."""
    query = (
        select(printers)
        .join(computers, printers.c.computer_id == computers.c.id)
        .where(_printer_in_scope(scope), printers.c.id == printer_id)
        .with_for_update(of=printers)
    )
    current = (await session.execute(query)).first()
    if current is None:
        raise not_found("printer")
    values = checked_values(settings)
    changes = settings_changes(current._mapping, values)
    if changes:
        await session.execute(update(printers).where(printers.c.id == printer_id).values(**values, updated_at=utcnow()))
        await _emit(session, printer_id, events.printer_updated(scope, printer_id, current.computer_id, changes))
    return await get_printer(session, scope, printer_id)


# --- Agent-gateway replicas -------------------------------------------------------------------


async def record_gateway_heartbeat(session: AsyncSession, gateway_instance: str, now: datetime) -> bool:
    """Records that a replica is alive; False when devices had no live record of it (never seen,
    or presumed dead and swept)."""
    known = (
        await session.execute(
            select(gateway_instances.c.instance_id)
            .where(gateway_instances.c.instance_id == gateway_instance)
            .with_for_update()
        )
    ).first() is not None
    await session.execute(
        pg_insert(gateway_instances)
        .values(instance_id=gateway_instance, last_heartbeat_at=now)
        .on_conflict_do_update(index_elements=[gateway_instances.c.instance_id], set_={"last_heartbeat_at": now})
    )
    return known


async def sweep_silent_gateways(session: AsyncSession, now: datetime, timeout: timedelta) -> int:
    """Marks offline the online computers whose replica has not heartbeated within `timeout`, and
    forgets those replicas; returns how many computers went offline.

    SKIP LOCKED lets devices replicas sweep side by side; a replica heartbeating at this moment
    either comes first (and stays alive) or finds itself unknown and drops its connections.
    """
    stale_before = now - timeout
    await session.execute(
        delete(gateway_instances).where(
            gateway_instances.c.instance_id.in_(
                select(gateway_instances.c.instance_id)
                .where(gateway_instances.c.last_heartbeat_at < stale_before)
                .with_for_update(skip_locked=True)
                .scalar_subquery()
            )
        )
    )
    alive = select(gateway_instances.c.instance_id).where(gateway_instances.c.last_heartbeat_at >= stale_before)
    orphans = (
        await session.execute(
            select(computers)
            .where(
                computers.c.state == COMPUTER_ONLINE,
                computers.c.deleted_at.is_(None),
                computers.c.gateway_instance.is_not(None),
                computers.c.gateway_instance.not_in(alive),
            )
            .with_for_update(skip_locked=True)
        )
    ).all()
    for computer in orphans:
        await _take_offline(session, computer, computer_state_when_disconnected(computer.disabled), {})
    return len(orphans)


# --- Test mode's virtual computer --------------------------------------------------------------


async def _virtual_computer_of(session: AsyncSession, organization_id: uuid.UUID) -> Any:
    query = select(_computer).where(
        computers.c.organization_id == organization_id, computers.c.is_virtual, computers.c.deleted_at.is_(None)
    )
    return (await session.execute(query)).scalar()


async def ensure_virtual_computer(session: AsyncSession, organization_id: uuid.UUID) -> Any:
    """The organization's virtual computer, created offline with its four printers if missing."""
    existing = await _virtual_computer_of(session, organization_id)
    if existing is not None:
        return existing
    report = virtual_computer_report()
    # A concurrent creation is settled by the one-virtual-computer-per-organization index.
    created = (
        await session.execute(
            pg_insert(computers)
            .values(
                id=uuid7(),
                organization_id=organization_id,
                mode=VIRTUAL_COMPUTER_MODE,
                name=VIRTUAL_COMPUTER_NAME,
                hostname=report.hostname,
                os=report.os,
                os_version=report.os_version,
                arch=report.arch,
                agent_version=report.agent_version,
                state=COMPUTER_OFFLINE,
                is_virtual=True,
                disabled=False,
                created_at=utcnow(),
            )
            .on_conflict_do_nothing(
                index_elements=[computers.c.organization_id],
                index_where=and_(computers.c.is_virtual, computers.c.deleted_at.is_(None)),
            )
            .returning(*computers.c)
        )
    ).first()
    if created is None:
        return await _virtual_computer_of(session, organization_id)
    await _reconcile_printers(session, _scope_of(created), created.id, created.state, virtual_printer_reports())
    return created
