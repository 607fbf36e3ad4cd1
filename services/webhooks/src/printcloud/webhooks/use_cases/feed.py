"""The event feed: public domain events recorded as feed events and deliveries, and the feed read
back behind `GET /v1/events`."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import parse_iso, utcnow
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.persistence import deliveries, feed
from printcloud.webhooks.persistence.tables import processed_messages

CONSUMER_GROUP = "webhooks"


@dataclass(frozen=True)
class PublicEvent:
    """A domain event of the public contract, as the consumer read it."""

    message_id: uuid.UUID
    scope: Scope
    type: str
    timestamp: str
    data: dict[str, Any]


class Feed:
    def __init__(self, db: Database, *, feed_visibility_delay: timedelta, on_new_delivery: Callable[[], None]) -> None:
        self.db = db
        self.feed_visibility_delay = feed_visibility_delay
        # Wakes the delivery worker: a delivery that became due is sent now, not at its next poll.
        self.on_new_delivery = on_new_delivery

    async def list_events(self, scope: Scope, page: PageRequest) -> Page[AnyRow]:
        async with self.db.read() as session:
            return await feed.list_visible(
                session, scope, page, now=utcnow(), visibility_delay=self.feed_visibility_delay
            )

    async def record_events(self, events: Sequence[PublicEvent]) -> None:
        """Public events become feed events and one delivery per subscribed endpoint that was
        enabled when each happened, once per message, all in one transaction."""
        now = utcnow()
        queued = 0
        async with self.db.transaction() as session:
            fresh = await processed_messages.mark_all(session, CONSUMER_GROUP, [e.message_id for e in events])
            by_scope: dict[Scope, list[PublicEvent]] = {}
            for event in events:
                if event.message_id in fresh:
                    fresh.discard(event.message_id)  # a message read twice in one batch counts once
                    by_scope.setdefault(event.scope, []).append(event)
            # Scopes in one order: batches of two replicas take their feed locks without ever
            # waiting for each other in a circle.
            for scope in sorted(by_scope, key=lambda scope: (scope.organization_id, scope.mode)):
                queued += await _record_in_scope(session, scope, by_scope[scope], now)
        if queued:
            self.on_new_delivery()


async def _record_in_scope(session: AsyncSession, scope: Scope, events: list[PublicEvent], now: datetime) -> int:
    occurred = [parse_iso(event.timestamp) or now for event in events]
    new = [feed.NewEvent(event.type, at, event.data) for event, at in zip(events, occurred, strict=True)]
    event_ids = await feed.append_all(session, scope, new, now)
    queued = 0
    for event, event_id, at in zip(events, event_ids, occurred, strict=True):
        payload = envelope(event_id, event.type, event.timestamp, scope.mode, event.data)
        queued += await deliveries.enqueue_for_event(
            session, scope, event_id, event.type, payload, occurred_at=at, now=now
        )
    return queued
