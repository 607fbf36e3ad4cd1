"""The event feed (spec, "Events feed"); scope `read`."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.requests import Request

from printcloud.api_gateway.transport.auth import ReadKey
from printcloud.api_gateway.transport.mapping import page_request, scope_of
from printcloud.api_gateway.transport.openapi import documented
from printcloud.api_gateway.transport.schemas import PagingQuery
from printcloud.contracts import representations
from printcloud.contracts.events import EventPage
from printcloud.core import rpc
from printcloud.v1 import webhooks_pb2

router = APIRouter(prefix="/v1", tags=["events"])


def event_json(e: webhooks_pb2.FeedEvent) -> dict[str, Any]:
    """A feed event is the envelope a webhook delivery of it sends."""
    return {"id": e.id, "type": e.type, "timestamp": e.timestamp, "mode": e.mode, "data": json.loads(e.data_json)}


@router.get("/events", **documented(200, EventPage))
async def list_events(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> dict[str, Any]:
    """The event feed

    Every event of the key's mode (the bodies webhooks deliver), each about 2 seconds after it
    happened. To follow it: start without `after`, then keep `after` at the id of the last event you
    processed, with `dir=asc`; never skip ahead, because an event may appear a moment after a newer one.

    Scope: `read`.

    Errors: `400 invalid_request` for bad paging parameters.

    Example: `GET /v1/events?dir=asc&after={id of the last event processed}&limit=100`.
    """
    page = await rpc.call(
        request.app.state.deps.webhooks.ListEvents,
        webhooks_pb2.ListEventsRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return representations.page(page.items, page.page, event_json)
