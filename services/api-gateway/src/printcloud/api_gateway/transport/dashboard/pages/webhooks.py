"""Webhook endpoints (the secret shown once), their deliveries, the delivery log across endpoints,
a delivery's page, and the event feed."""

from __future__ import annotations

from typing import Any

from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, Response

from printcloud.api_gateway.transport.dashboard.api_client import answer_as
from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FieldRefused, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.pages.lookups import computers_by_id, every, printers_by_id
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router
from printcloud.api_gateway.transport.dashboard.paging import Pager, page_of
from printcloud.api_gateway.transport.dashboard.web import PREFIX, Page, field, redirect, values
from printcloud.api_gateway.transport.schemas import AllDeliveriesQuery
from printcloud.contracts.enums import DELIVERY_STATUSES, SUBSCRIBABLE
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Printer
from printcloud.contracts.webhooks import WebhookDelivery

router = dashboard_router()

PAGE_SIZE = 25
_FIELDS = {"url": "url", "description": "description", "events": "events"}
_CODES = {"invalid_url": "url"}
# The delivery log's endpoint field is named as the API's filter, which it is sent as.
_ENDPOINT_FILTER = public_name(AllDeliveriesQuery, lambda query: query.endpoint_id)


def _endpoint_body(form: FormData) -> dict[str, Any]:
    events = values(form, "events")
    if not events:
        raise FieldRefused("events", "Choose at least one event to send to this endpoint.")
    return {"url": field(form, "url"), "description": field(form, "description"), "events": events}


async def _webhooks_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        endpoints = await every(api, "/v1/webhooks")
    return await p.render("webhooks.html", status, endpoints=endpoints, event_types=SUBSCRIBABLE, form=form)


@router.get("/webhooks")
async def webhooks_page(p: SignedIn) -> HTMLResponse:
    return await _webhooks_page(p)


@router.post("/webhooks")
async def create_webhook(p: SignedIn) -> Response:
    form = await p.form()
    try:
        body = _endpoint_body(form)
        async with p.api() as api:
            endpoint = await api.post("/v1/webhooks", body)
    except FieldRefused as refused:
        return await _webhooks_page(p, refused.state(form, lists=("events",)), 400)
    except ApiError as exc:
        if exc.code not in ("invalid_request", "invalid_url"):
            raise
        return await _webhooks_page(p, FormState(sent(form, lists=("events",)), errors_of(exc, _FIELDS, _CODES)), 400)
    shown = {"id": endpoint["id"], "url": endpoint["url"], "secret": endpoint["secret"]}
    return p.redirect_with_secret("/webhooks/created", shown)


@router.get("/webhooks/created")
async def webhook_created(p: SignedIn) -> Response:
    return await p.show_secret("webhook_created.html", "endpoint", gone="/webhooks")


# --- Deliveries across endpoints ------------------------------------------------------------


@router.get("/webhooks/deliveries")
async def deliveries_page(p: SignedIn) -> HTMLResponse:
    params = p.request.query_params
    query = {"status": params.get("status", ""), _ENDPOINT_FILTER: params.get(_ENDPOINT_FILTER, "")}
    form = FormState(query)
    deliveries: list[dict[str, Any]] = []
    pager = Pager()
    async with p.api() as api:
        endpoints = {endpoint["id"]: endpoint for endpoint in await every(api, "/v1/webhooks")}
        try:
            deliveries, pager = await page_of(
                api, "/v1/deliveries", query, params.get("after", ""), params.get("before", ""), PAGE_SIZE
            )
        except ApiError as exc:
            if exc.code != "invalid_request":
                raise
            form = FormState(query, errors_of(exc, {"status": "status", _ENDPOINT_FILTER: _ENDPOINT_FILTER}))
    return await p.render(
        "deliveries.html", deliveries=deliveries, endpoints=endpoints, statuses=DELIVERY_STATUSES, form=form,
        pages=pager.links(f"{PREFIX}/webhooks/deliveries", query),
    )  # fmt: skip


@router.get("/webhooks/deliveries/{delivery_id}")
async def delivery_page(p: SignedIn, delivery_id: str) -> HTMLResponse:
    async with p.api() as api:
        delivery = await api.get(f"/v1/deliveries/{delivery_id}")
        endpoint = await api.get(f"/v1/webhooks/{answer_as(WebhookDelivery, delivery).endpointId}")
    return await p.render("delivery.html", delivery=delivery, endpoint=endpoint)


@router.post("/webhooks/deliveries/{delivery_id}/replay")
async def replay_delivery(p: SignedIn, delivery_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        replayed = await api.post(f"/v1/webhooks/deliveries/{delivery_id}/replay")
    return redirect(f"/webhooks/deliveries/{replayed['id']}", "replayed")


# --- One endpoint ---------------------------------------------------------------------------


async def _endpoint_page(p: Page, endpoint_id: str, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        endpoint = await api.get(f"/v1/webhooks/{endpoint_id}")
        deliveries = (await api.get(f"/v1/webhooks/{endpoint_id}/deliveries", limit=PAGE_SIZE))["data"]
    return await p.render(
        "webhook.html", status, endpoint=endpoint, deliveries=deliveries, event_types=SUBSCRIBABLE, form=form
    )


@router.get("/webhooks/{endpoint_id}")
async def webhook_page(p: SignedIn, endpoint_id: str) -> HTMLResponse:
    return await _endpoint_page(p, endpoint_id)


@router.post("/webhooks/{endpoint_id}")
async def edit_webhook(p: SignedIn, endpoint_id: str) -> Response:
    form = await p.form()
    try:
        body = _endpoint_body(form)
        async with p.api() as api:
            await api.patch(f"/v1/webhooks/{endpoint_id}", body)
    except FieldRefused as refused:
        return await _endpoint_page(p, endpoint_id, refused.state(form, lists=("events",)), 400)
    except ApiError as exc:
        if exc.code not in ("invalid_request", "invalid_url"):
            raise
        state = FormState(sent(form, lists=("events",)), errors_of(exc, _FIELDS, _CODES))
        return await _endpoint_page(p, endpoint_id, state, exc.status)
    return redirect(f"/webhooks/{endpoint_id}", "saved")


@router.post("/webhooks/{endpoint_id}/enabled")
async def toggle_webhook(p: SignedIn, endpoint_id: str) -> Response:
    form = await p.form()
    async with p.api() as api:
        await api.patch(f"/v1/webhooks/{endpoint_id}", {"enabled": field(form, "enabled") == "true"})
    return redirect(f"/webhooks/{endpoint_id}", "saved")


@router.post("/webhooks/{endpoint_id}/ping")
async def ping_webhook(p: SignedIn, endpoint_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.post(f"/v1/webhooks/{endpoint_id}/ping")
    return redirect(f"/webhooks/{endpoint_id}", "pinged")


@router.get("/webhooks/{endpoint_id}/delete")
async def confirm_delete_webhook(p: SignedIn, endpoint_id: str) -> HTMLResponse:
    async with p.api() as api:
        endpoint = await api.get(f"/v1/webhooks/{endpoint_id}")
    return await p.confirm(
        "delete-webhook", endpoint["url"], f"/webhooks/{endpoint_id}/delete", f"/webhooks/{endpoint_id}"
    )


@router.post("/webhooks/{endpoint_id}/delete")
async def delete_webhook(p: SignedIn, endpoint_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.delete(f"/v1/webhooks/{endpoint_id}")
    return redirect("/webhooks", "deleted")


# --- The event feed -------------------------------------------------------------------------


def _subject(event: dict[str, Any], printers: dict[str, Any], computers: dict[str, Any]) -> dict[str, str]:
    """What an event is about, as a name and a link: the job, computer or printer it names."""
    data = event["data"]
    kind = event["type"].split(".")[0]
    if kind == "printjob":
        return {"name": str(data.get("title", "")), "href": f"{PREFIX}/jobs/{data.get('id', '')}"}
    if kind == "computer":
        known = computers.get(str(data.get("id")))
        name = str(data.get("name") or (known or {}).get("name") or "a computer")
        return {"name": name, "href": f"{PREFIX}/computers/{data.get('id', '')}" if known else ""}
    printer = printers.get(str(data.get("id")))
    if printer is None:
        return {"name": "a removed printer", "href": ""}
    shown = answer_as(Printer, printer)
    return {"name": shown.displayName or shown.name, "href": f"{PREFIX}/printers/{shown.id}"}


@router.get("/events")
async def events_page(p: SignedIn) -> HTMLResponse:
    params = p.request.query_params
    async with p.api() as api:
        events, pager = await page_of(api, "/v1/events", {}, params.get("after", ""), params.get("before", ""), 50)
        printers, computers = await printers_by_id(api), await computers_by_id(api)
    return await p.render(
        "events.html", events=[(event, _subject(event, printers, computers)) for event in events],
        pages=pager.links(f"{PREFIX}/events", {}),
    )  # fmt: skip
