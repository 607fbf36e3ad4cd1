"""What jobs keeps of its printers as devices answered them (`printer_facts`), and the generation
of each scope's facts (`printer_fact_scopes`): a fact holds while it was filled at its scope's
current generation. The create reads and fills them by the driver; forgetting is rare and rides
the caller's session."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, delete, func, literal_column, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.compiled_reads import CompiledRead, scope_bindparams, scope_values
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.jobs.persistence.tables import printer_fact_scopes, printer_facts

_s = printer_fact_scopes.c
_f = printer_facts.c


def generation_of_scope(organization_id: ColumnElement[Any], mode: ColumnElement[Any]) -> ColumnElement[Any]:
    """The current generation of a scope's facts, as a value inside another statement."""
    found = select(_s.generation).where(_s.organization_id == organization_id, _s.mode == mode).scalar_subquery()
    return func.coalesce(found, literal_column("0"))


def _read_statement() -> Select[Any]:
    organization_id, mode = scope_bindparams()
    scope = select(generation_of_scope(organization_id, mode).label("generation")).cte("scope")
    kept = (
        select(_f.printer, _f.filled_at)
        .where(
            _f.printer_id == bindparam("printer_id"),
            _f.organization_id == organization_id,
            _f.mode == mode,
            _f.generation == scope.c.generation,
            _f.filled_at > bindparam("kept_since"),
        )
        .subquery("kept")
    )
    return select(scope.c.generation, kept.c.printer, kept.c.filled_at).select_from(
        scope.outerjoin(kept, literal_column("true"))
    )


_read = CompiledRead.of(_read_statement())


class FactsChanged(Exception):
    """A statement that checked a scope's generation of facts (`generation_of_scope`, with
    `printer_facts_hold`, migration 0018) found it changed: nothing of it was written."""


# What `printer_facts_hold` raises.
FACTS_CHANGED = "PCL02"


@dataclass(frozen=True)
class Read:
    """The scope's generation, and the printer's facts with when they were filled, when they were
    filled at that generation after the time asked for (None otherwise)."""

    generation: int
    printer: bytes | None
    filled_at: datetime | None


_new = insert(printer_facts).values({column.name: bindparam(column.name, type_=column.type) for column in _f})
_fill = CompiledWrite.of(
    _new.on_conflict_do_update(
        index_elements=[_f.printer_id],
        set_={name: _new.excluded[name] for name in ("generation", "printer", "filled_at")},
        # A fill that began before another one and ends after it leaves the later one.
        where=and_(
            _f.generation <= _new.excluded.generation,
            _f.organization_id == _new.excluded.organization_id,
            _f.mode == _new.excluded.mode,
        ),
    )
)


async def read(db: Database, scope: Scope, printer_id: uuid.UUID, kept_since: datetime) -> Read:
    """The scope's generation, and the printer's facts when they were filled at it after `kept_since`."""
    row = await db.fetch_one(_read, printer_id=printer_id, kept_since=kept_since, **scope_values(scope))
    assert row is not None, "the scope's row is joined to at most one fact"
    if row.printer is None:
        return Read(int(row.generation), None, None)
    return Read(int(row.generation), bytes(row.printer), row.filled_at)


async def fill(
    db: Database, scope: Scope, printer_id: uuid.UUID, printer: bytes, generation: int, now: datetime
) -> None:
    """Keeps `printer` as read from devices after the scope was at `generation`: the fact holds
    only while nothing was forgotten since."""
    values = {"printer_id": printer_id, "generation": generation, "printer": printer, "filled_at": now}
    async with db.driver_transaction() as transaction:
        await transaction.execute(_fill, **values, **scope_values(scope))


async def forget(session: AsyncSession, scopes: Collection[Scope]) -> None:
    """Raises each scope's generation, so that every fact of it, and every fill under way from a
    read of devices made before now, no longer holds; the facts are dropped."""
    for scope in sorted(scopes, key=lambda s: (s.organization_id, s.mode)):
        bump = insert(printer_fact_scopes).values(organization_id=scope.organization_id, mode=scope.mode, generation=1)
        await session.execute(
            bump.on_conflict_do_update(
                index_elements=[_s.organization_id, _s.mode], set_={"generation": _s.generation + 1}
            )
        )
        await session.execute(
            delete(printer_facts).where(_f.organization_id == scope.organization_id, _f.mode == scope.mode)
        )
