"""Rows of the webhooks schema as the gRPC messages the gateway renders, and requests as the
values the use cases take."""

from __future__ import annotations

import json
from collections.abc import Sequence

from printcloud.core.db.database import AnyRow
from printcloud.core.timeutil import isoformat, isoformat_or_none
from printcloud.v1 import webhooks_pb2
from printcloud.webhooks.domain.endpoints import EndpointChanges


def endpoint(row: AnyRow, *, secret: str | None = None) -> webhooks_pb2.WebhookEndpoint:
    return webhooks_pb2.WebhookEndpoint(
        id=str(row.id), url=row.url, description=row.description, events=list(row.events), enabled=row.enabled,
        disabled_reason=row.disabled_reason, mode=row.mode, created_at=isoformat(row.created_at),
        updated_at=isoformat(row.updated_at), secret=secret,
    )  # fmt: skip


def delivery(row: AnyRow, attempts: Sequence[AnyRow] = ()) -> webhooks_pb2.WebhookDelivery:
    return webhooks_pb2.WebhookDelivery(
        id=str(row.id), endpoint_id=str(row.endpoint_id), event_id=str(row.event_id), event_type=row.event_type,
        payload_json=json.dumps(row.payload), attempt=row.attempt, status=row.status,
        response_code=row.response_code, response_body_excerpt=row.response_body_excerpt,
        next_attempt_at=isoformat_or_none(row.next_attempt_at), delivered_at=isoformat_or_none(row.delivered_at),
        created_at=isoformat(row.created_at), attempts=[delivery_attempt(a) for a in attempts],
    )  # fmt: skip


def delivery_attempt(row: AnyRow) -> webhooks_pb2.DeliveryAttempt:
    return webhooks_pb2.DeliveryAttempt(
        attempt=row.attempt, sent_at=isoformat(row.sent_at), response_code=row.response_code,
        response_body_excerpt=row.response_body_excerpt, request_headers=row.request_headers,
    )  # fmt: skip


def feed_event(row: AnyRow) -> webhooks_pb2.FeedEvent:
    # The feed shows the envelope a delivery of the event sends; `timestamp` is when it happened.
    return webhooks_pb2.FeedEvent(
        id=str(row.id), type=row.type, timestamp=isoformat(row.occurred_at), mode=row.mode,
        data_json=json.dumps(row.data),
    )  # fmt: skip


def endpoint_changes(request: webhooks_pb2.UpdateEndpointRequest) -> EndpointChanges:
    return EndpointChanges(
        description=request.description if request.HasField("description") else None,
        events=list(request.events) if request.set_events else None,
        enabled=request.enabled if request.HasField("enabled") else None,
        url=request.url if request.HasField("url") else None,
    )
