"""Every read and write of the devices schema. Scoping lives here and nowhere else.

Tenant reads take a `Scope` and filter on its organization and mode, hiding deleted computers and
removed printers: a row outside the scope is not there (None). Agent-lifecycle queries are
addressed by computer id only, because the agent-gateway has authenticated the agent's credential,
which names exactly one computer. Nothing here decides a state, raises an API error or writes an
event: that is `use_cases/`, which calls these inside its transactions. Rows come back typed
(`rows.py`).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.core.db.compiled_reads import CompiledRead, scope_bindparams, scope_values
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PagedRead, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.devices.domain.printers import KnownPrinter
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import COMPUTER_OFFLINE, PrinterCondition
from printcloud.devices.persistence.rows import AgentRow, ComputerRow, PrinterRow, page_of
from printcloud.devices.persistence.tables import agent_credentials, computers, gateway_instances, printers

# A printer row carries what the public shape needs of its computer.
_printer_columns = (
    *printers.c,
    computers.c.os.label("computer_os"),
    computers.c.is_virtual.label("computer_is_virtual"),
)
# A page through a session selects one Bundle because `fetch_page` reads `.scalars()`: each item
# is then a whole row.
_computer: Bundle[Row[Any]] = Bundle("computer", *computers.c)


def _computer_in_scope(scope: Scope) -> ColumnElement[bool]:
    return _computer_in(scope.organization_id, scope.mode)


def _computer_in(organization_id: Any, mode: Any) -> ColumnElement[bool]:
    """The scope's condition on values, or on named bindparams of a compiled read."""
    return and_(
        computers.c.organization_id == organization_id,
        computers.c.mode == mode,
        computers.c.deleted_at.is_(None),
    )


def _printer_in_scope(scope: Scope) -> ColumnElement[bool]:
    return _printer_in(scope.organization_id, scope.mode)


def _printer_in(organization_id: Any, mode: Any) -> ColumnElement[bool]:
    # The computer's condition too: a deleted computer hides its printers even before they are marked.
    return and_(
        printers.c.organization_id == organization_id,
        printers.c.mode == mode,
        printers.c.removed_at.is_(None),
        _computer_in(organization_id, mode),
    )


# --- Tenant reads ----------------------------------------------------------------------------


async def list_computers(session: AsyncSession, scope: Scope, page: PageRequest) -> Page[ComputerRow]:
    query = select(_computer).where(_computer_in_scope(scope))
    return page_of(await fetch_page(session, query, computers.c.id, page), ComputerRow.of)


# The reads behind `GET /v1/printers`, a job's creation and an agent's download, the hottest of
# devices, are compiled reads (`core.db.compiled_reads`): the same scoping, sent by the driver.
_computer_by_id = CompiledRead.of(
    select(computers).where(_computer_in(*scope_bindparams()), computers.c.id == bindparam("computer_id"))
)


async def get_computer(db: Database, scope: Scope, computer_id: uuid.UUID) -> ComputerRow | None:
    row = await db.fetch_one(_computer_by_id, computer_id=computer_id, **scope_values(scope))
    return None if row is None else ComputerRow.of(row)


_printers_in_scope = (
    select(*_printer_columns)
    .join(computers, printers.c.computer_id == computers.c.id)
    .where(_printer_in(*scope_bindparams()))
)
_printers_page = PagedRead(_printers_in_scope, printers.c.id)
_printers_of_computer_page = PagedRead(
    _printers_in_scope.where(printers.c.computer_id == bindparam("computer_id")), printers.c.id
)
_printer_by_id = CompiledRead.of(_printers_in_scope.where(printers.c.id == bindparam("printer_id")))


async def list_printers(
    db: Database, scope: Scope, page: PageRequest, computer_id: uuid.UUID | None = None
) -> Page[PrinterRow]:
    if computer_id is None:
        found = await _printers_page.fetch(db, page, **scope_values(scope))
    else:
        found = await _printers_of_computer_page.fetch(db, page, computer_id=computer_id, **scope_values(scope))
    return page_of(found, PrinterRow.of)


async def get_printer(db: Database, scope: Scope, printer_id: uuid.UUID) -> PrinterRow | None:
    row = await db.fetch_one(_printer_by_id, printer_id=printer_id, **scope_values(scope))
    return None if row is None else PrinterRow.of(row)


async def list_virtual_computers(session: AsyncSession) -> list[ComputerRow]:
    """Every organization's virtual computer, for the fleet process that serves them."""
    query = select(computers).where(computers.c.is_virtual, computers.c.deleted_at.is_(None)).order_by(computers.c.id)
    return [ComputerRow.of(row) for row in (await session.execute(query)).all()]


# --- Computers -------------------------------------------------------------------------------


async def insert_computer(session: AsyncSession, scope: Scope, name: str, hostname: str, now: datetime) -> ComputerRow:
    """A new offline computer with nothing reported yet."""
    inserted = (
        await session.execute(
            computers.insert()
            .values(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                name=name,
                hostname=hostname,
                os="",
                os_version="",
                arch="",
                agent_version="",
                state=COMPUTER_OFFLINE,
                is_virtual=False,
                disabled=False,
                created_at=now,
            )
            .returning(*computers.c)
        )
    ).one()
    return ComputerRow.of(inserted)


async def lock_computer(session: AsyncSession, computer_id: uuid.UUID) -> ComputerRow | None:
    # Row lock: connect, disconnect and reports of one computer apply one after the other.
    query = select(computers).where(computers.c.id == computer_id, computers.c.deleted_at.is_(None)).with_for_update()
    return _computer_or_none((await session.execute(query)).first())


def _computer_or_none(row: Row[Any] | None) -> ComputerRow | None:
    return None if row is None else ComputerRow.of(row)


async def lock_computer_in_scope(session: AsyncSession, scope: Scope, computer_id: uuid.UUID) -> ComputerRow | None:
    query = select(computers).where(_computer_in_scope(scope), computers.c.id == computer_id).with_for_update()
    return _computer_or_none((await session.execute(query)).first())


async def lock_computers_of_organization(session: AsyncSession, organization_id: uuid.UUID) -> list[ComputerRow]:
    """The organization's computers not deleted, of both modes, locked in id order."""
    query = (
        select(computers)
        .where(computers.c.organization_id == organization_id, computers.c.deleted_at.is_(None))
        .order_by(computers.c.id)
        .with_for_update()
    )
    return [ComputerRow.of(row) for row in (await session.execute(query)).all()]


async def update_computer(session: AsyncSession, computer_id: uuid.UUID, values: dict[str, Any]) -> ComputerRow:
    """Writes `values` to the computer; returns the updated row."""
    query = update(computers).where(computers.c.id == computer_id).values(**values).returning(*computers.c)
    return ComputerRow.of((await session.execute(query)).one())


async def touch_computers(session: AsyncSession, computer_ids: Sequence[uuid.UUID], now: datetime) -> None:
    """Sets `last_seen_at` of each computer not deleted; ids of deleted or unknown ones are skipped."""
    await session.execute(
        update(computers)
        .where(computers.c.id.in_(computer_ids), computers.c.deleted_at.is_(None))
        .values(last_seen_at=now)
    )


# --- Agent credentials -----------------------------------------------------------------------


async def revoke_credentials(session: AsyncSession, computer_id: uuid.UUID, now: datetime) -> None:
    await session.execute(
        update(agent_credentials)
        .where(agent_credentials.c.computer_id == computer_id, agent_credentials.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )


async def insert_credential(
    session: AsyncSession, computer_id: uuid.UUID, tenant: Scope, token_hash: str, now: datetime
) -> None:
    await session.execute(
        agent_credentials.insert().values(
            id=uuid7(),
            computer_id=computer_id,
            organization_id=tenant.organization_id,
            mode=tenant.mode,
            token_hash=token_hash,
            created_at=now,
        )
    )


async def find_agents(session: AsyncSession, token_hashes: Collection[str]) -> dict[str, AgentRow]:
    """The computers live credentials name, by the credential's hash; a hash of no live credential
    is missing."""
    rows = (
        await session.execute(
            select(
                agent_credentials.c.token_hash,
                computers.c.id.label("computer_id"),
                computers.c.organization_id,
                computers.c.mode,
                computers.c.disabled,
            )
            .join(agent_credentials, agent_credentials.c.computer_id == computers.c.id)
            .where(
                agent_credentials.c.token_hash.in_(token_hashes),
                agent_credentials.c.revoked_at.is_(None),
                computers.c.deleted_at.is_(None),
            )
        )
    ).all()
    return {row.token_hash: AgentRow(row.computer_id, row.organization_id, row.mode, row.disabled) for row in rows}


# --- Printers --------------------------------------------------------------------------------


async def known_printers(session: AsyncSession, computer_id: uuid.UUID) -> list[KnownPrinter]:
    rows = (
        await session.execute(select(printers).where(printers.c.computer_id == computer_id).order_by(printers.c.id))
    ).all()
    return [known_printer(r) for r in rows]


def known_printer(r: Any) -> KnownPrinter:
    """A printer as reconciling a computer's report sees it, from a row of `printers`."""
    return KnownPrinter(
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
        state_reasons=tuple(r.state_reasons),
    )


async def insert_printer(
    session: AsyncSession,
    scope: Scope,
    computer_id: uuid.UUID,
    report: ReportedPrinter,
    condition: PrinterCondition,
    now: datetime,
) -> uuid.UUID:
    """A printer first reported now, with the user settings a new printer starts with."""
    values = new_printer(scope, computer_id, report, condition, now)
    await session.execute(printers.insert().values(**values))
    id_: uuid.UUID = values["id"]
    return id_


def new_printer(
    scope: Scope, computer_id: uuid.UUID, report: ReportedPrinter, condition: PrinterCondition, now: datetime
) -> dict[str, Any]:
    """The row of a printer first reported now: a new id, and the user settings a new printer
    starts with."""
    return {
        "id": uuid7(),
        "organization_id": scope.organization_id,
        "mode": scope.mode,
        "computer_id": computer_id,
        "name": report.name,
        "os_name": report.os_name,
        "description": report.description,
        "display_name": report.os_name,
        "remarks": None,
        "enabled": True,
        "is_default": report.is_default,
        "state": condition.state,
        "state_reasons": list(condition.reasons),
        "state_detail": condition.detail,
        "capabilities": report.capabilities,
        "default_options": report.default_options,
        "custom_papers": [],
        "removed_at": None,
        "created_at": now,
        "updated_at": now,
    }


async def update_printer(session: AsyncSession, printer_id: uuid.UUID, values: dict[str, Any], now: datetime) -> None:
    await session.execute(update(printers).where(printers.c.id == printer_id).values(**values, updated_at=now))


async def mark_printer_removed(session: AsyncSession, printer_id: uuid.UUID, now: datetime) -> None:
    await session.execute(update(printers).where(printers.c.id == printer_id).values(removed_at=now, updated_at=now))


async def printers_of_computer(session: AsyncSession, computer_id: uuid.UUID) -> list[PrinterRow]:
    query = (
        select(*_printer_columns)
        .join(computers, printers.c.computer_id == computers.c.id)
        .where(printers.c.computer_id == computer_id, printers.c.removed_at.is_(None))
        .order_by(printers.c.id)
    )
    return [PrinterRow.of(row) for row in (await session.execute(query)).all()]


async def lock_printer_in_scope(session: AsyncSession, scope: Scope, printer_id: uuid.UUID) -> PrinterRow | None:
    query = (
        select(*_printer_columns)
        .join(computers, printers.c.computer_id == computers.c.id)
        .where(_printer_in_scope(scope), printers.c.id == printer_id)
        .with_for_update(of=printers)
    )
    row = (await session.execute(query)).first()
    return None if row is None else PrinterRow.of(row)


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


# --- Test mode's virtual computer --------------------------------------------------------------


async def virtual_computer_of(session: AsyncSession, organization_id: uuid.UUID) -> ComputerRow | None:
    query = select(computers).where(
        computers.c.organization_id == organization_id, computers.c.is_virtual, computers.c.deleted_at.is_(None)
    )
    return _computer_or_none((await session.execute(query)).first())


async def insert_virtual_computer(
    session: AsyncSession, scope: Scope, name: str, report: ReportedComputer, now: datetime
) -> ComputerRow | None:
    """The new virtual computer, or None when the organization has one already."""
    # A concurrent creation is settled by the one-virtual-computer-per-organization index.
    inserted = (
        await session.execute(
            pg_insert(computers)
            .values(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                name=name,
                hostname=report.hostname,
                os=report.os,
                os_version=report.os_version,
                arch=report.arch,
                agent_version=report.agent_version,
                state=COMPUTER_OFFLINE,
                is_virtual=True,
                disabled=False,
                created_at=now,
            )
            .on_conflict_do_nothing(
                index_elements=[computers.c.organization_id],
                index_where=and_(computers.c.is_virtual, computers.c.deleted_at.is_(None)),
            )
            .returning(*computers.c)
        )
    ).first()
    return _computer_or_none(inserted)
