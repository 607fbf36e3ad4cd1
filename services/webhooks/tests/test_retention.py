"""Delivery logs and feed events are kept 30 days (the spec's default), then purged; younger stay."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import select, update

from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence.tables import deliveries, events
from printcloud.webhooks.settings import Settings
from printcloud.webhooks.use_cases.retention import purge_once
from services.webhooks.tests.conftest import add_endpoint


async def _age(db: Database, scope: Scope, older_than_now: timedelta) -> None:
    """Backdates everything of `scope` recorded so far, as if it happened that long ago."""
    then = utcnow() - older_than_now
    async with db.transaction() as session:
        await session.execute(
            update(deliveries).where(deliveries.c.organization_id == scope.organization_id).values(created_at=then)
        )
        await session.execute(
            update(events).where(events.c.organization_id == scope.organization_id).values(recorded_at=then)
        )


async def test_logs_and_feed_events_older_than_30_days_are_purged_and_younger_ones_kept(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    retention = Settings(internal_auth_secret="s" * 32).retention
    assert retention == timedelta(days=30)
    await add_endpoint(db, scope, "http://127.0.0.1:9/hook")
    old = await publish(scope)
    await _age(db, scope, retention + timedelta(hours=1))
    young = await publish(scope)

    await purge_once(db, retention)

    async with db.read() as session:
        kept_deliveries = (
            await session.execute(
                select(deliveries.c.event_id).where(deliveries.c.organization_id == scope.organization_id)
            )
        ).scalars()
        kept_types = (
            await session.execute(select(events.c.data).where(events.c.organization_id == scope.organization_id))
        ).scalars()
        remaining_deliveries = [str(event_id) for event_id in kept_deliveries]
        remaining_events = [data["id"] for data in kept_types]
    assert remaining_events == [young.data["id"]], "the 31-day-old feed event is gone, the new one stays"
    assert len(remaining_deliveries) == 1 and old.data["id"] not in remaining_events
