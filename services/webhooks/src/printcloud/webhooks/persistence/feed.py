"""The event feed: ids that never let a poller following `after` miss an event.

A feed id is minted inside the writing transaction while it holds its scope's advisory lock, and
the lock is held until commit. So an id becomes visible only after every smaller id of the scope
has committed, and nothing committed later can get a smaller id: reading `id > after` in id order
never skips a row that appears afterwards. The visibility delay (spec: about 2 seconds) is applied
as a cut-off id, so what a reader sees is always a prefix of the scope's ids.
"""

from __future__ import annotations

import functools
import hashlib
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Insert, Row, and_, bindparam, column, literal_column, select, values
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle
from sqlalchemy.sql.expression import CTE

from printcloud.core.db import value_lists
from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.database import AnyRow, rows_affected
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.webhooks.persistence.tables import events

_event: Bundle[Row[Any]] = Bundle("event", *events.c)


def _in_scope(scope: Scope) -> ColumnElement[bool]:
    return and_(events.c.organization_id == scope.organization_id, events.c.mode == scope.mode)


def lock_key(scope: Scope) -> int:
    """The advisory lock a writer holds on the scope's feed from before it reads the scope's last id
    until it commits. Writers of several scopes take their locks in (organization, mode) order."""
    digest = hashlib.sha256(f"feed:{scope.organization_id}:{scope.mode}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def next_ids(last: uuid.UUID | None, count: int) -> list[uuid.UUID]:
    """Ids for `count` new events of a scope whose largest id is `last`, increasing."""
    ids: list[uuid.UUID] = []
    for _ in range(count):
        event_id = uuid7()
        if last is not None and event_id <= last:
            # Another replica's clock may be ahead, or two ids share a millisecond: stay above the
            # largest id whatever the clocks say.
            event_id = uuid.UUID(int=last.int + 1)
        ids.append(event_id)
        last = event_id
    return ids


@functools.cache
def _last_ids(count: int) -> CompiledRead:
    """The largest id of each of `count` scopes, each scope two parameters of its own
    (`core.db.value_lists`). PostgreSQL has no max(uuid); the largest id is read through the index."""
    columns = events.c.organization_id, events.c.mode
    scopes = values(*(column(c.name, c.type) for c in columns), name="scope").data(
        [tuple(bindparam(f"{c.name}_{n}", type_=c.type) for c in columns) for n in range(count)]
    )
    last = (
        select(events.c.id)
        .where(events.c.organization_id == scopes.c.organization_id, events.c.mode == scopes.c.mode)
        .order_by(events.c.id.desc())
        .limit(literal_column("1"))
        .scalar_subquery()
    )
    return CompiledRead.of(select(scopes.c.organization_id, scopes.c.mode, last.label("last_id")))


async def last_ids(tx: DriverTransaction, scopes: Sequence[Scope]) -> dict[Scope, uuid.UUID | None]:
    """The largest id of each scope's feed; read it only while holding the scope's lock."""
    last: dict[Scope, uuid.UUID | None] = {}
    for part in value_lists.parts(scopes):
        named: dict[str, object] = {}
        for n, scope in enumerate(part):
            named |= {f"organization_id_{n}": scope.organization_id, f"mode_{n}": scope.mode}
        for row in await tx.fetch(_last_ids(len(part)), **named):
            last[Scope(row.organization_id, row.mode)] = row.last_id
    return last


def appending(new_events: CTE) -> Insert:
    """Inserts the rows of `new_events` (`id`, `organization_id`, `mode`, `type`, `occurred_at`,
    `data`) as feed events recorded at the `recorded_at` value."""
    return events.insert().from_select(
        ["id", "organization_id", "mode", "type", "occurred_at", "data", "recorded_at"],
        select(
            new_events.c.id,
            new_events.c.organization_id,
            new_events.c.mode,
            new_events.c.type,
            new_events.c.occurred_at,
            new_events.c.data,
            bindparam("recorded_at", type_=events.c.recorded_at.type),
        ),
    )


async def list_visible(
    session: AsyncSession, scope: Scope, page: PageRequest, *, now: datetime, visibility_delay: timedelta
) -> Page[AnyRow]:
    # PostgreSQL has no max(uuid); the newest old-enough id is read through the index instead.
    cutoff = (
        select(events.c.id)
        .where(_in_scope(scope), events.c.recorded_at <= now - visibility_delay)
        .order_by(events.c.id.desc())
        .limit(1)
        .scalar_subquery()
    )
    return await fetch_page(session, select(_event).where(_in_scope(scope), events.c.id <= cutoff), events.c.id, page)


async def purge_recorded_before(session: AsyncSession, cutoff: datetime) -> int:
    return await rows_affected(session, events.delete().where(events.c.recorded_at < cutoff))
