"""Reads and writes of webhook endpoints, always within a tenant's scope."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Row, and_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle

from printcloud.core.db.database import AnyRow, rows_affected
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.webhooks.persistence.tables import endpoint_enabled_periods, endpoints

# One Bundle, because `fetch_page` reads `.scalars()`: each item is then a whole row.
_endpoint: Bundle[Row[Any]] = Bundle("endpoint", *endpoints.c)


def _in_scope(scope: Scope) -> ColumnElement[bool]:
    return and_(endpoints.c.organization_id == scope.organization_id, endpoints.c.mode == scope.mode)


async def create(
    session: AsyncSession,
    scope: Scope,
    *,
    url: str,
    description: str,
    events: Sequence[str],
    secret: str,
    now: datetime,
) -> AnyRow:
    row = (
        await session.execute(
            endpoints.insert()
            .values(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                url=url,
                description=description,
                events=list(events),
                secret=secret,
                enabled=True,
                created_at=now,
                updated_at=now,
            )
            .returning(*endpoints.c)
        )
    ).one()
    await record_enabled(session, row.id, True, now)
    return row


async def record_enabled(session: AsyncSession, endpoint_id: uuid.UUID, enabled: bool, now: datetime) -> None:
    """Opens an enabled period, or closes the open one; repeating the current state changes nothing."""
    periods = endpoint_enabled_periods
    if enabled:
        await session.execute(
            pg_insert(periods)
            .values(endpoint_id=endpoint_id, enabled_from=now)
            .on_conflict_do_nothing(
                index_elements=[periods.c.endpoint_id], index_where=periods.c.enabled_until.is_(None)
            )
        )
    else:
        await session.execute(
            periods.update()
            .where(periods.c.endpoint_id == endpoint_id, periods.c.enabled_until.is_(None))
            .values(enabled_until=now)
        )


async def get(
    session: AsyncSession, scope: Scope, endpoint_id: uuid.UUID, *, for_update: bool = False
) -> AnyRow | None:
    query = select(_endpoint).where(_in_scope(scope), endpoints.c.id == endpoint_id)
    if for_update:
        query = query.with_for_update()
    return (await session.execute(query)).scalar()


async def list_page(session: AsyncSession, scope: Scope, page: PageRequest) -> Page[AnyRow]:
    return await fetch_page(session, select(_endpoint).where(_in_scope(scope)), endpoints.c.id, page)


async def update(session: AsyncSession, scope: Scope, endpoint_id: uuid.UUID, changes: dict[str, Any]) -> AnyRow | None:
    """The updated row, or None when there is no such endpoint in `scope`."""
    return (
        await session.execute(
            endpoints.update()
            .where(_in_scope(scope), endpoints.c.id == endpoint_id)
            .values(**changes)
            .returning(*endpoints.c)
        )
    ).first()


async def delete(session: AsyncSession, scope: Scope, endpoint_id: uuid.UUID) -> bool:
    """Removes the endpoint; its deliveries go with it (ON DELETE CASCADE), so none is sent after.
    False when there was no such endpoint in `scope`."""
    return await rows_affected(session, endpoints.delete().where(_in_scope(scope), endpoints.c.id == endpoint_id)) > 0


async def delete_all_of(session: AsyncSession, organization_id: uuid.UUID) -> None:
    """Every endpoint of the organization, of both modes, with their deliveries (ON DELETE CASCADE)."""
    await session.execute(endpoints.delete().where(endpoints.c.organization_id == organization_id))
