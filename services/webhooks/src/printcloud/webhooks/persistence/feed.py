"""The event feed: ids that never let a poller following `after` miss an event.

A feed id is minted inside the writing transaction while it holds its scope's advisory lock, and
the lock is held until commit. So an id becomes visible only after every smaller id of the scope
has committed, and nothing committed later can get a smaller id: reading `id > after` in id order
never skips a row that appears afterwards. The visibility delay (spec: about 2 seconds) is applied
as a cut-off id, so what a reader sees is always a prefix of the scope's ids.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.core.db.database import AnyRow, rows_affected
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.webhooks.persistence.tables import events

_event: Bundle[Row[Any]] = Bundle("event", *events.c)


def _in_scope(scope: Scope) -> ColumnElement[bool]:
    return and_(events.c.organization_id == scope.organization_id, events.c.mode == scope.mode)


def _lock_key(scope: Scope) -> int:
    digest = hashlib.sha256(f"feed:{scope.organization_id}:{scope.mode}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@dataclass(frozen=True)
class NewEvent:
    event_type: str
    occurred_at: datetime
    data: dict[str, Any]


async def append(
    session: AsyncSession, scope: Scope, event_type: str, occurred_at: datetime, data: dict[str, Any], now: datetime
) -> uuid.UUID:
    """Adds an event to the scope's feed and returns its id (see `append_all`)."""
    [event_id] = await append_all(session, scope, [NewEvent(event_type, occurred_at, data)], now)
    return event_id


async def append_all(session: AsyncSession, scope: Scope, new: Sequence[NewEvent], now: datetime) -> list[uuid.UUID]:
    """Adds events to the scope's feed, in this order, and returns their ids. Holds the scope's feed
    lock until the caller's transaction ends, so keep the rest of that transaction short, and take
    the locks of several scopes in one order."""
    await session.execute(select(func.pg_advisory_xact_lock(_lock_key(scope))))
    last = await session.scalar(select(events.c.id).where(_in_scope(scope)).order_by(events.c.id.desc()).limit(1))
    ids: list[uuid.UUID] = []
    for _ in new:
        event_id = uuid7()
        if last is not None and event_id <= last:
            # Another replica's clock may be ahead, or two ids share a millisecond: stay above the
            # largest id whatever the clocks say.
            event_id = uuid.UUID(int=last.int + 1)
        ids.append(event_id)
        last = event_id
    rows = [
        {"id": event_id, "organization_id": scope.organization_id, "mode": scope.mode, "type": event.event_type,
         "occurred_at": event.occurred_at, "data": event.data, "recorded_at": now}
        for event_id, event in zip(ids, new, strict=True)
    ]  # fmt: skip
    await session.execute(events.insert(), rows)
    return ids


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
