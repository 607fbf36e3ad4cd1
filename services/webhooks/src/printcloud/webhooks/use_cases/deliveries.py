"""Deliveries on demand: the delivery log, a ping, and a replay of a past delivery."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from printcloud.contracts.errors import found
from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.list_filters import delivery_status
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.domain.event_types import PING
from printcloud.webhooks.persistence import deliveries, endpoints
from printcloud.webhooks.use_cases.endpoints import ENDPOINT, require_enabled

DELIVERY = "webhook delivery"


class Deliveries:
    def __init__(self, db: Database, *, on_new_delivery: Callable[[], None]) -> None:
        self.db = db
        # Wakes the delivery worker: a delivery that became due is sent now, not at its next poll.
        self.on_new_delivery = on_new_delivery

    async def list_page(
        self, scope: Scope, page: PageRequest, *, endpoint_id: uuid.UUID | None, status: str | None
    ) -> tuple[Page[AnyRow], dict[uuid.UUID, list[AnyRow]]]:
        """A page of the delivery log (one endpoint's, or the scope's), and the attempts of each."""
        delivery_status(status)
        async with self.db.read() as session:
            if endpoint_id is not None:
                found(await endpoints.get(session, scope, endpoint_id), ENDPOINT)
            listed = await deliveries.list_in_scope(session, scope, page, endpoint_id=endpoint_id, status=status)
            attempts = await deliveries.attempts_of(session, [row.id for row in listed.items])
        return listed, attempts

    async def get(self, scope: Scope, delivery_id: uuid.UUID) -> tuple[AnyRow, list[AnyRow]]:
        async with self.db.read() as session:
            row = found(await deliveries.get(session, scope, delivery_id), DELIVERY)
            attempts = await deliveries.attempts_of(session, [row.id])
        return row, attempts[row.id]

    async def ping(self, scope: Scope, endpoint_id: uuid.UUID) -> AnyRow:
        now = utcnow()
        async with self.db.transaction() as session:
            endpoint = found(await endpoints.get(session, scope, endpoint_id, for_update=True), ENDPOINT)
            require_enabled(endpoint)
            event_id = uuid7()
            payload = envelope(event_id, PING, isoformat(now), scope.mode, {})
            row = await deliveries.enqueue_one(session, endpoint, event_id, PING, payload, now)
        self.on_new_delivery()
        return row

    async def replay(self, scope: Scope, delivery_id: uuid.UUID) -> AnyRow:
        now = utcnow()
        async with self.db.transaction() as session:
            original = found(await deliveries.get(session, scope, delivery_id), DELIVERY)
            endpoint = found(await endpoints.get(session, scope, original.endpoint_id, for_update=True), ENDPOINT)
            require_enabled(endpoint)
            # Same envelope, same event id: receivers see the same webhook-id again.
            row = await deliveries.enqueue_one(
                session, endpoint, original.event_id, original.event_type, original.payload, now
            )
        self.on_new_delivery()
        return row
