"""Webhook endpoints, their delivery logs, pings and replays (spec, "Webhooks").

Scopes: `read` for the GETs, `admin` for every write (create, change, delete, ping, replay).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import MISSING
from starlette.requests import Request

from printcloud.api_gateway.domain.audit import Change
from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.transport.audit_trail import record, sent_fields
from printcloud.api_gateway.transport.auth import AdminKey, ReadKey
from printcloud.api_gateway.transport.bodies import parse_json_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import page_request, path_id, scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body, link
from printcloud.api_gateway.transport.schemas import (
    AllDeliveriesQuery,
    DeliveryListQuery,
    NoQuery,
    PagingQuery,
)
from printcloud.contracts import representations
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import WebhookCreate, WebhookUpdate
from printcloud.contracts.webhooks import (
    CreatedWebhookEndpoint,
    WebhookDelivery,
    WebhookDeliveryPage,
    WebhookEndpoint,
    WebhookEndpointPage,
)
from printcloud.core import rpc
from printcloud.core.db import list_filters
from printcloud.v1 import webhooks_pb2, webhooks_pb2_grpc

router = APIRouter(prefix="/v1", tags=["webhooks"])
_ENDPOINT_ID = public_name(AllDeliveriesQuery, lambda query: query.endpoint_id)


def _endpoint_links(source: str) -> dict[str, dict[str, Any]]:
    return {
        "GetWebhook": link("get_webhook", source),
        "UpdateWebhook": link("update_webhook", source),
        "PingWebhook": link("ping_webhook", source),
        "ListWebhookDeliveries": link("list_webhook_deliveries", source),
        "DeleteWebhook": link("delete_webhook", source),
    }


def _delivery_links(source: str) -> dict[str, dict[str, Any]]:
    return {
        "ReplayWebhookDelivery": link("replay_webhook_delivery", source),
        "GetWebhookDelivery": link("get_webhook_delivery", source),
    }


def _webhooks(request: Request) -> webhooks_pb2_grpc.WebhooksStub:
    deps: GatewayDeps = request.app.state.deps
    return deps.webhooks


@router.post(
    "/webhooks",
    openapi_extra=json_body(WebhookCreate),
    **documented(201, CreatedWebhookEndpoint, 413, 422, links=_endpoint_links("$response.body#/id")),
)
async def create_webhook(request: Request, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Create a webhook endpoint

    Subscribes `url` to `events`. The answer holds the signing `secret` (`whsec_…`), shown only in this
    response: verify each delivery's `webhook-signature` with it (Standard Webhooks). Live endpoints
    need `https:`; test-mode ones may use `http:`. The host must resolve to public addresses.

    Scope: `admin`.

    Errors: `400 invalid_request` (missing `url` or `events`, an unknown event type, `ping`);
    `413 content_too_large`; `422 invalid_url` (a scheme the mode does not allow, credentials in the
    URL, a private or reserved address).

    Example: `POST /v1/webhooks` with

    ```json
    {"url": "https://example.com/printcloud", "events": ["printjob.done", "printjob.error"]}
    ```
    """
    body = await parse_json_body(request, WebhookCreate)
    created = await rpc.call(
        _webhooks(request).CreateEndpoint,
        webhooks_pb2.CreateEndpointRequest(
            scope=scope_of(identity),
            url=body.url,
            description="" if body.description is MISSING else body.description,
            events=body.events,
        ),
    )
    details = {"events": list(created.events)}
    await record(request, identity, Change("webhook.created", created.id, created.url, details, identity.mode))
    return representations.created_webhook_endpoint(created)


@router.get(
    "/deliveries",
    **documented(200, WebhookDeliveryPage, 404, links=_delivery_links("$response.body#/data/0/id")),
)
async def list_all_webhook_deliveries(
    request: Request, identity: ReadKey, query: Annotated[AllDeliveriesQuery, Query()]
) -> dict[str, Any]:
    """List deliveries across endpoints

    The delivery log of every webhook endpoint of the key's mode, newest first by default, or of
    one endpoint with `endpointId`; `status` keeps the deliveries in one status (`pending`,
    `retrying`, `succeeded`, `failed`). Each delivery carries its attempts, with the request
    headers each was sent with, the response code and the start of each answer. Kept 30 days.
    (The path is not under `/v1/webhooks/`, where `deliveries` would read as an endpoint's id.)

    Scope: `read`.

    Errors: `400 invalid_request` for an unknown `status` or an `endpointId` that is not a UUID;
    `404 not_found` for an `endpointId` of another organization or mode.

    Example: `GET /v1/deliveries?status=failed&limit=20`.
    """
    endpoint_id = list_filters.id_filter(query.endpoint_id, _ENDPOINT_ID)
    return await _deliveries(request, identity, query, endpoint_id=None if endpoint_id is None else str(endpoint_id))


@router.get("/deliveries/{id}", **documented(200, WebhookDelivery, 404, links=_delivery_links("$response.body#/id")))
async def get_webhook_delivery(
    request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    """Get a delivery

    One delivery of the key's mode: the payload exactly as sent, its status, every attempt with the
    request headers it was sent with, the response code and the start of the answer, and when the
    next attempt is due.

    Scope: `read`.

    Errors: `404 not_found` for a delivery of another organization or mode, or none at all.

    Example: `GET /v1/deliveries/{id}`.
    """
    delivery = await rpc.call(
        _webhooks(request).GetDelivery,
        webhooks_pb2.DeliveryRef(scope=scope_of(identity), id=path_id(id, "webhook delivery")),
    )
    return representations.webhook_delivery(delivery)


@router.get("/webhooks", **documented(200, WebhookEndpointPage, links=_endpoint_links("$response.body#/data/0/id")))
async def list_webhooks(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> dict[str, Any]:
    """List webhook endpoints

    The endpoints of the key's mode (never their secrets).

    Scope: `read`.

    Example: `GET /v1/webhooks`.
    """
    page = await rpc.call(
        _webhooks(request).ListEndpoints,
        webhooks_pb2.ListEndpointsRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return representations.page(page.items, page.page, representations.webhook_endpoint)


@router.get("/webhooks/{id}", **documented(200, WebhookEndpoint, 404, links=_endpoint_links("$response.body#/id")))
async def get_webhook(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Get a webhook endpoint

    One endpoint (never its secret), with `disabledReason` when it was disabled after 5 days of failed
    deliveries.

    Scope: `read`.

    Errors: `404 not_found`.

    Example: `GET /v1/webhooks/{id}`.
    """
    endpoint = await rpc.call(
        _webhooks(request).GetEndpoint,
        webhooks_pb2.EndpointRef(scope=scope_of(identity), id=path_id(id, "webhook endpoint")),
    )
    return representations.webhook_endpoint(endpoint)


@router.patch(
    "/webhooks/{id}",
    openapi_extra=json_body(WebhookUpdate),
    **documented(200, WebhookEndpoint, 404, 413, 422, links=_endpoint_links("$response.body#/id")),
)
async def update_webhook(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    """Change or re-enable a webhook endpoint

    Any of `url`, `description`, `events` (replaces the list) and `enabled`. Re-enabling sends the
    deliveries that were due while it was disabled; events that happened while it was disabled are
    never sent to it.

    Scope: `admin`.

    Errors: `400 invalid_request`; `404 not_found`; `413 content_too_large`; `422 invalid_url`.

    Example: `PATCH /v1/webhooks/{id}` with `{"enabled": true}`.
    """
    endpoint_id = path_id(id, "webhook endpoint")
    body = await parse_json_body(request, WebhookUpdate)
    update = webhooks_pb2.UpdateEndpointRequest(scope=scope_of(identity), id=endpoint_id)
    if body.url is not MISSING:
        update.url = body.url
    if body.description is not MISSING:
        update.description = body.description
    if body.events is not MISSING:
        update.set_events = True
        update.events.extend(body.events)
    if body.enabled is not MISSING:
        update.enabled = body.enabled
    endpoint = await rpc.call(_webhooks(request).UpdateEndpoint, update)
    change = Change("webhook.updated", endpoint_id, endpoint.url, sent_fields(body), identity.mode)
    await record(request, identity, change)
    return representations.webhook_endpoint(endpoint)


@router.delete(
    "/webhooks/{id}", response_class=Response, **documented(204, None, 404, description="The endpoint is removed")
)
async def delete_webhook(request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> Response:
    """Delete a webhook endpoint

    Removes the endpoint, its pending deliveries and its delivery log. Answers `204`.

    Scope: `admin`.

    Errors: `404 not_found`.

    Example: `DELETE /v1/webhooks/{id}`.
    """
    ref = webhooks_pb2.EndpointRef(scope=scope_of(identity), id=path_id(id, "webhook endpoint"))
    # Its URL, for the audit log, while it still has one.
    endpoint = await rpc.call(_webhooks(request).GetEndpoint, ref)
    await rpc.call(_webhooks(request).DeleteEndpoint, ref)
    await record(request, identity, Change("webhook.deleted", ref.id, endpoint.url, mode=identity.mode))
    return Response(status_code=204)


@router.get(
    "/webhooks/{id}/deliveries",
    **documented(200, WebhookDeliveryPage, 404, links=_delivery_links("$response.body#/data/0/id")),
)
async def list_webhook_deliveries(
    request: Request, id: str, identity: ReadKey, query: Annotated[DeliveryListQuery, Query()]
) -> dict[str, Any]:
    """List an endpoint's deliveries

    The delivery log of one endpoint, newest first by default: each delivery's status, its attempts
    with their response codes and the start of each answer. Kept 30 days.

    Scope: `read`.

    Errors: `404 not_found`.

    Example: `GET /v1/webhooks/{id}/deliveries?limit=20`.
    """
    return await _deliveries(request, identity, query, endpoint_id=path_id(id, "webhook endpoint"))


async def _deliveries(
    request: Request, identity: Identity, query: DeliveryListQuery, *, endpoint_id: str | None
) -> dict[str, Any]:
    list_filters.delivery_status(query.status)
    page = await rpc.call(
        _webhooks(request).ListDeliveries,
        webhooks_pb2.ListDeliveriesRequest(
            scope=scope_of(identity), endpoint_id=endpoint_id, page=page_request(query), status=query.status
        ),
    )
    return representations.page(page.items, page.page, representations.webhook_delivery)


@router.post(
    "/webhooks/{id}/ping",
    **documented(
        202, WebhookDelivery, 404, 409, links=_delivery_links("$response.body#/id"), description="A `ping` delivery"
    ),
)
async def ping_webhook(request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Send a test delivery

    Queues a signed delivery of type `ping` with empty `data` to the endpoint, with the usual retries,
    and answers it (`202`). Pings never appear in the event feed and never count as usage.

    Scope: `admin`.

    Errors: `404 not_found`; `409 endpoint_disabled`.

    Example: `POST /v1/webhooks/{id}/ping` with no body.
    """
    delivery = await rpc.call(
        _webhooks(request).PingEndpoint,
        webhooks_pb2.EndpointRef(scope=scope_of(identity), id=path_id(id, "webhook endpoint")),
    )
    return representations.webhook_delivery(delivery)


@router.post(
    "/webhooks/deliveries/{id}/replay",
    **documented(202, WebhookDelivery, 404, 409, description="The same event sent again, same `webhook-id`"),
)
async def replay_webhook_delivery(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    """Send a delivery again

    Sends the delivery's event again, as a new delivery with the same `webhook-id` (receivers that skip
    ids they have processed skip it too), and answers it (`202`).

    Scope: `admin`.

    Errors: `404 not_found`; `409 endpoint_disabled`.

    Example: `POST /v1/webhooks/deliveries/{id}/replay` with no body.
    """
    delivery = await rpc.call(
        _webhooks(request).ReplayDelivery,
        webhooks_pb2.DeliveryRef(scope=scope_of(identity), id=path_id(id, "webhook delivery")),
    )
    return representations.webhook_delivery(delivery)
