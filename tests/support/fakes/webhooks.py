"""The webhooks service in memory: endpoints, their deliveries and the event feed per organization
and mode, with the real service's rules for URLs, disabled endpoints and paging."""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

from printcloud.contracts.enums import DELIVERY_STATUSES
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.http.egress import EgressGuard, EgressRefused
from printcloud.core.ids import new_id
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from printcloud.webhooks.domain.endpoints import (
    MAX_URL_LENGTH,
    check_description,
    check_events,
    refused_url,
    schemes_for,
)
from tests.support.fakes.paging import page_of
from tests.support.fakes.recorder import Recorder

NOW = "2030-01-01T00:00:00.000Z"


def _scope(scope: common_pb2.Scope) -> tuple[str, str]:
    return scope.organization_id, scope.mode


class FakeWebhooks(webhooks_pb2_grpc.WebhooksServicer):
    def __init__(self, recorder: Recorder | None = None, guard: EgressGuard | None = None) -> None:
        self.recorder = recorder or Recorder()
        # Literal addresses are judged as the real service judges them; names are not resolved.
        self.guard = guard or EgressGuard()
        self.endpoints: dict[str, tuple[tuple[str, str], webhooks_pb2.WebhookEndpoint]] = {}
        self.deliveries: dict[str, tuple[tuple[str, str], webhooks_pb2.WebhookDelivery]] = {}
        self.events: list[tuple[tuple[str, str], webhooks_pb2.FeedEvent]] = []

    @property
    def requests(self) -> list[Any]:
        return self.recorder.requests

    def add_event(
        self, organization_id: str, mode: str, event_type: str, data: dict[str, Any]
    ) -> webhooks_pb2.FeedEvent:
        event = webhooks_pb2.FeedEvent(
            id=new_id(), type=event_type, timestamp=NOW, mode=mode, data_json=json.dumps(data)
        )
        self.events.append(((organization_id, mode), event))
        return event

    def add_delivery(
        self, endpoint: webhooks_pb2.WebhookEndpoint, event_type: str, **fields: Any
    ) -> webhooks_pb2.WebhookDelivery:
        key = self._key_of_endpoint(endpoint.id)
        event_id = new_id()
        payload = {"id": event_id, "type": event_type, "timestamp": NOW, "mode": endpoint.mode, "data": {}}
        shown = {
            "id": new_id(), "endpoint_id": endpoint.id, "event_id": event_id, "event_type": event_type,
            "payload_json": json.dumps(payload), "attempt": 0, "status": "pending", "next_attempt_at": NOW,
            "created_at": NOW,
        }  # fmt: skip
        delivery = webhooks_pb2.WebhookDelivery(**{**shown, **fields})
        self.deliveries[delivery.id] = (key, delivery)
        return delivery

    def _key_of_endpoint(self, endpoint_id: str) -> tuple[str, str]:
        return self.endpoints[endpoint_id][0]

    def _endpoint(self, endpoint_id: str, scope: common_pb2.Scope) -> webhooks_pb2.WebhookEndpoint:
        found = self.endpoints.get(endpoint_id)
        if found is None or found[0] != _scope(scope):
            raise not_found("webhook endpoint")
        return found[1]

    def _check_url(self, url: str, mode: str) -> None:
        """The real service's static checks (its domain rules, the guard); names are not resolved."""
        try:
            self.guard.check_url(url, schemes=schemes_for(mode), ports=None, max_length=MAX_URL_LENGTH)
        except EgressRefused as refused:
            raise refused_url(refused.reason.rstrip(".")) from None

    async def CreateEndpoint(self, request: webhooks_pb2.CreateEndpointRequest, context: Any) -> Any:
        self.recorder.add("CreateEndpoint", request, context)
        events, description = check_events(request.events), check_description(request.description)
        self._check_url(request.url, request.scope.mode)
        endpoint = webhooks_pb2.WebhookEndpoint(
            id=new_id(), url=request.url, description=description, events=events, enabled=True,
            mode=request.scope.mode, created_at=NOW, updated_at=NOW,
        )  # fmt: skip
        self.endpoints[endpoint.id] = (_scope(request.scope), endpoint)
        shown = webhooks_pb2.WebhookEndpoint()
        shown.CopyFrom(endpoint)
        shown.secret = "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()
        return shown

    async def ListEndpoints(self, request: webhooks_pb2.ListEndpointsRequest, context: Any) -> Any:
        self.recorder.add("ListEndpoints", request, context)
        mine = [endpoint for key, endpoint in self.endpoints.values() if key == _scope(request.scope)]
        items, info = page_of(mine, request.page)
        return webhooks_pb2.WebhookEndpointPage(items=items, page=info)

    async def GetEndpoint(self, request: webhooks_pb2.EndpointRef, context: Any) -> Any:
        self.recorder.add("GetEndpoint", request, context)
        return self._endpoint(request.id, request.scope)

    async def UpdateEndpoint(self, request: webhooks_pb2.UpdateEndpointRequest, context: Any) -> Any:
        self.recorder.add("UpdateEndpoint", request, context)
        endpoint = self._endpoint(request.id, request.scope)
        if request.HasField("url"):
            self._check_url(request.url, request.scope.mode)
            endpoint.url = request.url
        if request.HasField("description"):
            endpoint.description = check_description(request.description)
        if request.set_events:
            del endpoint.events[:]
            endpoint.events.extend(check_events(request.events))
        if request.HasField("enabled"):
            endpoint.enabled = request.enabled
            endpoint.ClearField("disabled_reason")  # no reason is kept while enabled or after a user's change
        return endpoint

    async def DeleteEndpoint(self, request: webhooks_pb2.EndpointRef, context: Any) -> Any:
        self.recorder.add("DeleteEndpoint", request, context)
        endpoint = self._endpoint(request.id, request.scope)
        del self.endpoints[endpoint.id]
        return common_pb2.Empty()

    async def ListDeliveries(self, request: webhooks_pb2.ListDeliveriesRequest, context: Any) -> Any:
        self.recorder.add("ListDeliveries", request, context)
        if request.HasField("status") and request.status not in DELIVERY_STATUSES:
            raise ApiError("invalid_request", f"`status` must be one of {', '.join(DELIVERY_STATUSES)}.")
        mine = [delivery for key, delivery in self.deliveries.values() if key == _scope(request.scope)]
        if request.HasField("endpoint_id"):
            endpoint = self._endpoint(request.endpoint_id, request.scope)
            mine = [delivery for delivery in mine if delivery.endpoint_id == endpoint.id]
        if request.HasField("status"):
            mine = [delivery for delivery in mine if delivery.status == request.status]
        items, info = page_of(mine, request.page)
        return webhooks_pb2.WebhookDeliveryPage(items=items, page=info)

    async def GetDelivery(self, request: webhooks_pb2.DeliveryRef, context: Any) -> Any:
        self.recorder.add("GetDelivery", request, context)
        found = self.deliveries.get(request.id)
        if found is None or found[0] != _scope(request.scope):
            raise not_found("webhook delivery")
        return found[1]

    async def PingEndpoint(self, request: webhooks_pb2.EndpointRef, context: Any) -> Any:
        self.recorder.add("PingEndpoint", request, context)
        endpoint = self._endpoint(request.id, request.scope)
        if not endpoint.enabled:
            raise ApiError("endpoint_disabled", "The webhook endpoint is disabled; re-enable it with PATCH first.")
        return self.add_delivery(endpoint, "ping")

    async def ReplayDelivery(self, request: webhooks_pb2.DeliveryRef, context: Any) -> Any:
        self.recorder.add("ReplayDelivery", request, context)
        found = self.deliveries.get(request.id)
        if found is None or found[0] != _scope(request.scope):
            raise not_found("webhook delivery")
        original = found[1]
        endpoint = self._endpoint(original.endpoint_id, request.scope)
        if not endpoint.enabled:
            raise ApiError("endpoint_disabled", "The webhook endpoint is disabled; re-enable it with PATCH first.")
        # Same envelope, same event id: receivers see the same webhook-id again.
        replay = webhooks_pb2.WebhookDelivery(
            id=new_id(), endpoint_id=endpoint.id, event_id=original.event_id, event_type=original.event_type,
            payload_json=original.payload_json, attempt=0, status="pending", next_attempt_at=NOW, created_at=NOW,
        )  # fmt: skip
        self.deliveries[replay.id] = (found[0], replay)
        return replay

    async def ListEvents(self, request: webhooks_pb2.ListEventsRequest, context: Any) -> Any:
        self.recorder.add("ListEvents", request, context)
        mine = [event for key, event in self.events if key == _scope(request.scope)]
        items, info = page_of(mine, request.page)
        return webhooks_pb2.FeedEventPage(items=items, page=info)
