"""The webhooks use cases: endpoints, deliveries on demand (ping, replay), the event feed, and
recording the domain events the consumer hands over.

Each use case is one transaction over the persistence modules, applying the rules of `domain/`.
The workers (`workers/`) send the deliveries recorded here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.enums import DELIVERY_STATUSES
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.http.egress import EgressFailed, EgressGuard, EgressRefused
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, parse_iso, utcnow
from printcloud.webhooks.domain.endpoints import (
    MAX_URL_LENGTH,
    EndpointChanges,
    check_description,
    check_events,
    refused_url,
    schemes_for,
)
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.domain.event_types import PING
from printcloud.webhooks.domain.signing import new_secret
from printcloud.webhooks.persistence import deliveries, endpoints, feed, mail
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


ENDPOINT = "webhook endpoint"
DELIVERY = "webhook delivery"

Found = TypeVar("Found")


def _found(row: Found | None, what: str) -> Found:
    if row is None:
        raise not_found(what)
    return row


def _require_enabled(endpoint: AnyRow) -> None:
    if not endpoint.enabled:
        raise ApiError("endpoint_disabled", "The webhook endpoint is disabled; re-enable it with PATCH first.")


class WebhookService:
    def __init__(
        self, db: Database, guard: EgressGuard, *, feed_visibility_delay: timedelta, on_new_delivery: Callable[[], None]
    ) -> None:
        self.db = db
        self.guard = guard
        self.feed_visibility_delay = feed_visibility_delay
        # Wakes the delivery worker: a delivery that became due is sent now, not at its next poll.
        self.on_new_delivery = on_new_delivery

    async def _check_url(self, url: str, mode: str) -> None:
        """The spec's URL rules (also applied by the guard before every send). Any port: see Sender."""
        schemes = schemes_for(mode)
        try:
            self.guard.check_url(url, schemes=schemes, ports=None, max_length=MAX_URL_LENGTH)
            await self.guard.resolve(url, ports=None, schemes=schemes)
        except (EgressRefused, EgressFailed) as error:
            raise refused_url(error.reason.rstrip(".")) from None

    async def create_endpoint(
        self, scope: Scope, *, url: str, description: str, events: Sequence[str]
    ) -> tuple[AnyRow, str]:
        """The new endpoint and its signing secret (returned this once)."""
        checked_events = check_events(events)
        checked_description = check_description(description)
        await self._check_url(url, scope.mode)
        secret = new_secret()
        async with self.db.transaction() as session:
            row = await endpoints.create(
                session,
                scope,
                url=url,
                description=checked_description,
                events=checked_events,
                secret=secret,
                now=utcnow(),
            )
        return row, secret

    async def list_endpoints(self, scope: Scope, page: PageRequest) -> Page[AnyRow]:
        async with self.db.read() as session:
            return await endpoints.list_page(session, scope, page)

    async def get_endpoint(self, scope: Scope, endpoint_id: uuid.UUID) -> AnyRow:
        async with self.db.read() as session:
            return _found(await endpoints.get(session, scope, endpoint_id), ENDPOINT)

    async def update_endpoint(self, scope: Scope, endpoint_id: uuid.UUID, update: EndpointChanges) -> AnyRow:
        now = utcnow()
        changes: dict[str, Any] = {"updated_at": now}
        if update.description is not None:
            changes["description"] = check_description(update.description)
        if update.events is not None:
            changes["events"] = check_events(update.events)
        if update.enabled is not None:
            # A re-enabled endpoint starts with a clean failure mark; no reason is kept while enabled.
            changes.update(enabled=update.enabled, disabled_reason=None, failing_since=None)
        if update.url is not None:
            await self.get_endpoint(scope, endpoint_id)  # 404 before judging the URL
            await self._check_url(update.url, scope.mode)
            changes["url"] = update.url
        async with self.db.transaction() as session:
            row = _found(await endpoints.update(session, scope, endpoint_id, changes), ENDPOINT)
            if update.enabled is not None:
                await endpoints.record_enabled(session, endpoint_id, update.enabled, now)
        if row.enabled:
            self.on_new_delivery()  # deliveries held while it was disabled are due again
        return row

    async def delete_endpoint(self, scope: Scope, endpoint_id: uuid.UUID) -> None:
        async with self.db.transaction() as session:
            if not await endpoints.delete(session, scope, endpoint_id):
                raise not_found(ENDPOINT)

    async def list_deliveries(
        self, scope: Scope, page: PageRequest, *, endpoint_id: uuid.UUID | None, status: str | None
    ) -> tuple[Page[AnyRow], dict[uuid.UUID, list[AnyRow]]]:
        """A page of the delivery log (one endpoint's, or the scope's), and the attempts of each."""
        if status is not None and status not in DELIVERY_STATUSES:
            raise ApiError("invalid_request", f"`status` must be one of {', '.join(DELIVERY_STATUSES)}.")
        async with self.db.read() as session:
            if endpoint_id is not None:
                _found(await endpoints.get(session, scope, endpoint_id), ENDPOINT)
            listed = await deliveries.list_in_scope(session, scope, page, endpoint_id=endpoint_id, status=status)
            attempts = await deliveries.attempts_of(session, [row.id for row in listed.items])
        return listed, attempts

    async def get_delivery(self, scope: Scope, delivery_id: uuid.UUID) -> tuple[AnyRow, list[AnyRow]]:
        async with self.db.read() as session:
            row = _found(await deliveries.get(session, scope, delivery_id), DELIVERY)
            attempts = await deliveries.attempts_of(session, [row.id])
        return row, attempts[row.id]

    async def ping_endpoint(self, scope: Scope, endpoint_id: uuid.UUID) -> AnyRow:
        now = utcnow()
        async with self.db.transaction() as session:
            endpoint = _found(await endpoints.get(session, scope, endpoint_id, for_update=True), ENDPOINT)
            _require_enabled(endpoint)
            event_id = uuid7()
            payload = envelope(event_id, PING, isoformat(now), scope.mode, {})
            row = await deliveries.enqueue_one(session, endpoint, event_id, PING, payload, now)
        self.on_new_delivery()
        return row

    async def replay_delivery(self, scope: Scope, delivery_id: uuid.UUID) -> AnyRow:
        now = utcnow()
        async with self.db.transaction() as session:
            original = _found(await deliveries.get(session, scope, delivery_id), DELIVERY)
            endpoint = _found(await endpoints.get(session, scope, original.endpoint_id, for_update=True), ENDPOINT)
            _require_enabled(endpoint)
            # Same envelope, same event id: receivers see the same webhook-id again.
            row = await deliveries.enqueue_one(
                session, endpoint, original.event_id, original.event_type, original.payload, now
            )
        self.on_new_delivery()
        return row

    async def list_events(self, scope: Scope, page: PageRequest) -> Page[AnyRow]:
        async with self.db.read() as session:
            return await feed.list_visible(
                session, scope, page, now=utcnow(), visibility_delay=self.feed_visibility_delay
            )

    async def replace_owners(self, message_id: uuid.UUID, organization_id: uuid.UUID, emails: Sequence[str]) -> None:
        """The addresses e-mailed about the organization's endpoints, once per message."""
        async with self.db.transaction() as session:
            if await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                await mail.replace_owners(session, organization_id, [email.lower() for email in emails])

    async def forget_organization(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> None:
        """A deleted organization: its endpoints of both modes deleted (their deliveries and logs go
        with them, so nothing more is sent) and no owner left to e-mail, once per message."""
        async with self.db.transaction() as session:
            if await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                await endpoints.delete_all_of(session, organization_id)
                await mail.replace_owners(session, organization_id, [])

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
                queued += await self._record_in_scope(session, scope, by_scope[scope], now)
        if queued:
            self.on_new_delivery()

    @staticmethod
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
