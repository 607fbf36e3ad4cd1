"""The Webhooks gRPC service: requests to use-case calls and rows to messages, nothing more."""

from __future__ import annotations

from printcloud.core.db.paging import PageRequest, page_info_to_proto
from printcloud.core.ids import resource_id
from printcloud.core.rpc import ServicerContext
from printcloud.core.scope import scope_from_proto
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from printcloud.webhooks.transport import mapping
from printcloud.webhooks.use_cases.deliveries import DELIVERY, Deliveries
from printcloud.webhooks.use_cases.endpoints import ENDPOINT, Endpoints
from printcloud.webhooks.use_cases.feed import Feed


class WebhooksServicer(webhooks_pb2_grpc.WebhooksServicer):
    def __init__(self, endpoints: Endpoints, deliveries: Deliveries, feed: Feed) -> None:
        self.endpoints = endpoints
        self.deliveries = deliveries
        self.feed = feed

    async def Ping(self, request: common_pb2.Empty, context: ServicerContext) -> common_pb2.Empty:
        return common_pb2.Empty()

    async def CreateEndpoint(
        self, request: webhooks_pb2.CreateEndpointRequest, context: ServicerContext
    ) -> webhooks_pb2.WebhookEndpoint:
        row, secret = await self.endpoints.create(
            scope_from_proto(request.scope), url=request.url, description=request.description, events=request.events
        )
        return mapping.endpoint(row, secret=secret)

    async def ListEndpoints(
        self, request: webhooks_pb2.ListEndpointsRequest, context: ServicerContext
    ) -> webhooks_pb2.WebhookEndpointPage:
        page = await self.endpoints.list_page(scope_from_proto(request.scope), PageRequest.from_proto(request.page))
        return webhooks_pb2.WebhookEndpointPage(
            items=[mapping.endpoint(row) for row in page.items], page=page_info_to_proto(page)
        )

    async def GetEndpoint(
        self, request: webhooks_pb2.EndpointRef, context: ServicerContext
    ) -> webhooks_pb2.WebhookEndpoint:
        row = await self.endpoints.get(scope_from_proto(request.scope), resource_id(request.id, ENDPOINT))
        return mapping.endpoint(row)

    async def UpdateEndpoint(
        self, request: webhooks_pb2.UpdateEndpointRequest, context: ServicerContext
    ) -> webhooks_pb2.WebhookEndpoint:
        scope = scope_from_proto(request.scope)
        endpoint_id = resource_id(request.id, ENDPOINT)
        row = await self.endpoints.update(scope, endpoint_id, mapping.endpoint_changes(request))
        return mapping.endpoint(row)

    async def DeleteEndpoint(self, request: webhooks_pb2.EndpointRef, context: ServicerContext) -> common_pb2.Empty:
        await self.endpoints.delete(scope_from_proto(request.scope), resource_id(request.id, ENDPOINT))
        return common_pb2.Empty()

    async def ListDeliveries(
        self, request: webhooks_pb2.ListDeliveriesRequest, context: ServicerContext
    ) -> webhooks_pb2.WebhookDeliveryPage:
        scope = scope_from_proto(request.scope)
        endpoint_id = resource_id(request.endpoint_id, ENDPOINT) if request.HasField("endpoint_id") else None
        status = request.status if request.HasField("status") else None
        page, attempts = await self.deliveries.list_page(
            scope, PageRequest.from_proto(request.page), endpoint_id=endpoint_id, status=status
        )
        return webhooks_pb2.WebhookDeliveryPage(
            items=[mapping.delivery(row, attempts[row.id]) for row in page.items], page=page_info_to_proto(page)
        )

    async def GetDelivery(
        self, request: webhooks_pb2.DeliveryRef, context: ServicerContext
    ) -> webhooks_pb2.WebhookDelivery:
        row, attempts = await self.deliveries.get(scope_from_proto(request.scope), resource_id(request.id, DELIVERY))
        return mapping.delivery(row, attempts)

    async def PingEndpoint(
        self, request: webhooks_pb2.EndpointRef, context: ServicerContext
    ) -> webhooks_pb2.WebhookDelivery:
        row = await self.deliveries.ping(scope_from_proto(request.scope), resource_id(request.id, ENDPOINT))
        return mapping.delivery(row)

    async def ReplayDelivery(
        self, request: webhooks_pb2.DeliveryRef, context: ServicerContext
    ) -> webhooks_pb2.WebhookDelivery:
        row = await self.deliveries.replay(scope_from_proto(request.scope), resource_id(request.id, DELIVERY))
        return mapping.delivery(row)

    async def ListEvents(
        self, request: webhooks_pb2.ListEventsRequest, context: ServicerContext
    ) -> webhooks_pb2.FeedEventPage:
        page = await self.feed.list_events(scope_from_proto(request.scope), PageRequest.from_proto(request.page))
        return webhooks_pb2.FeedEventPage(
            items=[mapping.feed_event(row) for row in page.items], page=page_info_to_proto(page)
        )
