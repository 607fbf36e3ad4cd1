"""The jobs-side read model of printer conditions (`printer_conditions`): written by the consumer of
devices' `printer.*` events, read with the jobs of a tenant's reads, always within its scope."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.compiled_reads import CompiledRead, scope_bindparams, scope_values
from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.jobs.domain.printer_conditions import PrinterCondition, PrinterConditionChange
from printcloud.jobs.persistence.tables import printer_conditions

_t = printer_conditions


def _in(organization_id: Any, mode: Any) -> ColumnElement[bool]:
    """The scope's condition on values, or on named bindparams of a compiled read."""
    return and_(_t.c.organization_id == organization_id, _t.c.mode == mode)


async def record(session: AsyncSession, changes: Sequence[PrinterConditionChange]) -> None:
    """Upserts one row per printer in one statement; a row announced later than a change stays."""
    if not changes:
        return
    rows = [
        {
            "printer_id": change.printer_id,
            "organization_id": change.scope.organization_id,
            "mode": change.scope.mode,
            "state": change.condition.state,
            "state_reasons": list(change.condition.reasons),
            "state_detail": change.condition.detail,
            "as_of": change.at,
        }
        for change in changes
    ]
    statement = insert(_t).values(rows)
    excluded = statement.excluded
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[_t.c.printer_id],
            set_={
                "state": excluded.state,
                "state_reasons": excluded.state_reasons,
                "state_detail": excluded.state_detail,
                "as_of": excluded.as_of,
            },
            where=_t.c.as_of <= excluded.as_of,
        )
    )


def _condition(row: Any) -> PrinterCondition:
    return PrinterCondition(row.state, tuple(row.state_reasons), row.state_detail)


_one = CompiledRead.of(
    select(_t.c.state, _t.c.state_reasons, _t.c.state_detail).where(
        _t.c.printer_id == bindparam("printer_id"), _in(*scope_bindparams())
    )
)


async def read_one(db: Database, scope: Scope, printer_id: uuid.UUID) -> PrinterCondition | None:
    row = await db.fetch_one(_one, printer_id=printer_id, **scope_values(scope))
    return _condition(row) if row is not None else None


async def read_many(
    session: AsyncSession, scope: Scope, printer_ids: Collection[uuid.UUID]
) -> dict[uuid.UUID, PrinterCondition]:
    if not printer_ids:
        return {}
    query = select(_t).where(_t.c.printer_id.in_(list(printer_ids)), _in(scope.organization_id, scope.mode))
    return {row.printer_id: _condition(row) for row in (await session.execute(query)).all()}
