"""The event feed: public domain events recorded as feed events and deliveries, and the feed read
back behind `GET /v1/events`."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta

from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.persistence import feed, public_events

CONSUMER_GROUP = "webhooks"


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
        # A message read twice in one batch (a relay may send it twice) counts once.
        first: dict[uuid.UUID, PublicEvent] = {}
        for event in events:
            first.setdefault(event.message_id, event)
        async with self.db.driver_transaction() as tx:
            recorded = await public_events.record(tx, CONSUMER_GROUP, list(first.values()), utcnow())
        if recorded.deliveries:
            self.on_new_delivery()
