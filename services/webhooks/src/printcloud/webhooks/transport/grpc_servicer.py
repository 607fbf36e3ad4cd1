"""The Webhooks gRPC service: mapping between messages and the repository, nothing more."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import grpc

from printcloud.core.db import Database
from printcloud.core.egress import EgressFailed, EgressGuard, EgressRefused
from printcloud.core.errors import ApiError, not_found
from printcloud.core.ids import parse_uuid, uuid7
from printcloud.core.paging import PageRequest, page_info_fields
from printcloud.core.scope import Scope, parse_scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from printcloud.webhooks.domain.endpoints import (
    MAX_URL_LENGTH,
    check_description,
    check_events,
    refused_url,
    schemes_for,
)
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.domain.event_types import PING
from printcloud.webhooks.domain.signing import new_secret
from printcloud.webhooks.persistence import deliveries, endpoints, feed
from printcloud.webhooks.transport import mapping


def _id(value: str, what: str) -> uuid.UUID:
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return parsed


def _scope(request: Any) -> Scope:
    return parse_scope(request.scope.organization_id, request.scope.mode)


class WebhooksServicer(webhooks_pb2_grpc.WebhooksServicer):
    def __init__(
        self, db: Database, guard: EgressGuard, *, feed_visibility_delay: timedelta, on_new_delivery: Callable[[], None]
    ) -> None:
        self.db = db
        self.guard = guard
        self.feed_visibility_delay = feed_visibility_delay
        self.on_new_delivery = on_new_delivery

    async def _check_url(self, url: str, mode: str) -> None:
        """The spec's URL rules (also applied by the guard before every send). Any port: see Sender."""
        schemes = schemes_for(mode)
        try:
            self.guard.check_url(url, schemes=schemes, ports=None, max_length=MAX_URL_LENGTH)
            await self.guard.resolve(url, ports=None, schemes=schemes)
        except (EgressRefused, EgressFailed) as error:
            raise refused_url(error.reason.rstrip(".")) from None

    async def Ping(self, request: common_pb2.Empty, context: grpc.aio.ServicerContext) -> common_pb2.Empty:
        return common_pb2.Empty()

    async def CreateEndpoint(self, request: Any, context: Any) -> webhooks_pb2.WebhookEndpoint:
        scope = _scope(request)
        events = check_events(request.events)
        description = check_description(request.description)
        await self._check_url(request.url, scope.mode)
        secret = new_secret()
        async with self.db.transaction() as session:
            row = await endpoints.create(
                session, scope, url=request.url, description=description, events=events, secret=secret, now=utcnow()
            )
        return mapping.endpoint(row, secret=secret)

    async def ListEndpoints(self, request: Any, context: Any) -> webhooks_pb2.WebhookEndpointPage:
        async with self.db.read() as session:
            page = await endpoints.list_page(session, _scope(request), PageRequest.from_proto(request.page))
        return webhooks_pb2.WebhookEndpointPage(
            items=[mapping.endpoint(row) for row in page.items], page=common_pb2.PageInfo(**page_info_fields(page))
        )

    async def GetEndpoint(self, request: Any, context: Any) -> webhooks_pb2.WebhookEndpoint:
        async with self.db.read() as session:
            row = await endpoints.get(session, _scope(request), _id(request.id, "webhook endpoint"))
        return mapping.endpoint(row)

    async def UpdateEndpoint(self, request: Any, context: Any) -> webhooks_pb2.WebhookEndpoint:
        scope = _scope(request)
        endpoint_id = _id(request.id, "webhook endpoint")
        now = utcnow()
        changes: dict[str, Any] = {"updated_at": now}
        if request.HasField("description"):
            changes["description"] = check_description(request.description)
        if request.set_events:
            changes["events"] = check_events(request.events)
        if request.HasField("enabled"):
            # A re-enabled endpoint starts with a clean failure mark; no reason is kept while enabled.
            changes.update(enabled=request.enabled, disabled_reason=None, failing_since=None)
        if request.HasField("url"):
            async with self.db.read() as session:
                await endpoints.get(session, scope, endpoint_id)  # 404 before judging the URL
            await self._check_url(request.url, scope.mode)
            changes["url"] = request.url
        async with self.db.transaction() as session:
            row = await endpoints.update(session, scope, endpoint_id, changes)
            if request.HasField("enabled"):
                await endpoints.record_enabled(session, endpoint_id, request.enabled, now)
        if row.enabled:
            self.on_new_delivery()  # deliveries held while it was disabled are due again
        return mapping.endpoint(row)

    async def DeleteEndpoint(self, request: Any, context: Any) -> common_pb2.Empty:
        async with self.db.transaction() as session:
            await endpoints.delete(session, _scope(request), _id(request.id, "webhook endpoint"))
        return common_pb2.Empty()

    async def ListDeliveries(self, request: Any, context: Any) -> webhooks_pb2.WebhookDeliveryPage:
        scope = _scope(request)
        endpoint_id = _id(request.endpoint_id, "webhook endpoint")
        async with self.db.read() as session:
            await endpoints.get(session, scope, endpoint_id)
            page = await deliveries.list_for_endpoint(session, scope, endpoint_id, PageRequest.from_proto(request.page))
            attempts = await deliveries.attempts_of(session, [row.id for row in page.items])
        return webhooks_pb2.WebhookDeliveryPage(
            items=[mapping.delivery(row, attempts[row.id]) for row in page.items],
            page=common_pb2.PageInfo(**page_info_fields(page)),
        )

    async def PingEndpoint(self, request: Any, context: Any) -> webhooks_pb2.WebhookDelivery:
        scope = _scope(request)
        now = utcnow()
        async with self.db.transaction() as session:
            endpoint = await endpoints.get(session, scope, _id(request.id, "webhook endpoint"), for_update=True)
            _require_enabled(endpoint)
            event_id = uuid7()
            payload = envelope(event_id, PING, isoformat(now), scope.mode, {})
            row = await deliveries.enqueue_one(session, endpoint, event_id, PING, payload, now)
        self.on_new_delivery()
        return mapping.delivery(row)

    async def ReplayDelivery(self, request: Any, context: Any) -> webhooks_pb2.WebhookDelivery:
        scope = _scope(request)
        now = utcnow()
        async with self.db.transaction() as session:
            original = await deliveries.get(session, scope, _id(request.id, "webhook delivery"))
            endpoint = await endpoints.get(session, scope, original.endpoint_id, for_update=True)
            _require_enabled(endpoint)
            # Same envelope, same event id: receivers see the same webhook-id again.
            row = await deliveries.enqueue_one(
                session, endpoint, original.event_id, original.event_type, original.payload, now
            )
        self.on_new_delivery()
        return mapping.delivery(row)

    async def ListEvents(self, request: Any, context: Any) -> webhooks_pb2.FeedEventPage:
        async with self.db.read() as session:
            page = await feed.list_visible(
                session,
                _scope(request),
                PageRequest.from_proto(request.page),
                now=utcnow(),
                visibility_delay=self.feed_visibility_delay,
            )
        return webhooks_pb2.FeedEventPage(
            items=[mapping.feed_event(row) for row in page.items], page=common_pb2.PageInfo(**page_info_fields(page))
        )


def _require_enabled(endpoint: Any) -> None:
    if not endpoint.enabled:
        raise ApiError("endpoint_disabled", "The webhook endpoint is disabled; re-enable it with PATCH first.")
