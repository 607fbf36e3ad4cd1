"""The dashboard's routes. Reads and changes of printers, jobs, webhooks and events go through the
public API (`ApiClient`); accounts (sign-in, members, keys) through the gateway's use cases."""

from __future__ import annotations

import base64
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from starlette.datastructures import FormData, UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from printcloud.api_gateway.domain.print_jobs import JOB_STATES
from printcloud.api_gateway.domain.roles import MANAGE, role_allows
from printcloud.api_gateway.domain.sessions import COOKIE_NAME
from printcloud.api_gateway.transport.dashboard.forms import UPLOAD_FORM_BYTES, read_form
from printcloud.api_gateway.transport.dashboard.web import (
    NOTICES,
    PREFIX,
    STATIC_DIR,
    DashboardRoute,
    Page,
    check_origin,
    field,
    page,
    redirect,
    render,
)
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.contracts.enums import SUBSCRIBABLE
from printcloud.contracts.errors import ApiError

router = APIRouter(prefix=PREFIX, route_class=DashboardRoute, include_in_schema=False)
SignedIn = Annotated[Page, Depends(page)]

# The API's own limit on documents (spec, content rules).
MAX_PDF_BYTES = 25 * 1024 * 1024
EVENT_TYPES = SUBSCRIBABLE
SECTIONS = ("overview", "printers", "print", "jobs", "webhooks", "events", "members", "keys")


def _events(form: FormData) -> list[str]:
    return [value for value in form.getlist("events") if isinstance(value, str)]


def _deps(request: Request) -> GatewayDeps:
    deps: GatewayDeps = request.app.state.deps
    return deps


@router.get("/static/dashboard.css")
async def stylesheet() -> FileResponse:
    return FileResponse(STATIC_DIR / "dashboard.css", media_type="text/css", headers={"Cache-Control": "max-age=300"})


@router.get("")
async def home(request: Request) -> RedirectResponse:
    return redirect("/overview" if request.cookies.get(COOKIE_NAME) else "/sign-in")


# --- Signing in and out ---------------------------------------------------------------------


@router.get("/sign-in")
async def sign_in_page(request: Request) -> HTMLResponse:
    notice = NOTICES.get(request.query_params.get("notice", ""), "")
    return render(request, "sign_in.html", identity=None, notice=notice, signup=_deps(request).dashboard.signup)


@router.post("/sign-in")
async def request_code(request: Request) -> HTMLResponse:
    check_origin(request)
    form = await read_form(request)
    email = field(form, "email")
    client = request.client.host if request.client else "unknown"
    await _deps(request).sign_in.request_code(email, client)
    return render(request, "enter_code.html", identity=None, email=email.lower())


@router.post("/verify")
async def verify_code(request: Request) -> Response:
    check_origin(request)
    form = await read_form(request)
    email = field(form, "email")
    try:
        signed_in = await _deps(request).sign_in.verify_code(email, field(form, "code"))
    except ApiError as exc:
        if exc.code != "unauthorized":
            raise
        return render(request, "enter_code.html", exc.status, identity=None, email=email.lower(), error=exc)
    response = redirect("/overview")
    settings = _deps(request).dashboard
    response.set_cookie(
        COOKIE_NAME,
        signed_in.token,
        max_age=int(settings.session_absolute_seconds),
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/sign-out")
async def sign_out(p: SignedIn) -> Response:
    await p.form()
    await p.deps.sign_in.sign_out(p.token)
    response = redirect("/sign-in", "signed-out")
    response.delete_cookie(COOKIE_NAME, path="/")
    return response


@router.post("/switch")
async def switch(p: SignedIn) -> Response:
    form = await p.form()
    await p.deps.sign_in.switch(p.identity, field(form, "organization_id"), field(form, "mode"))
    # Back to the section, not the item: an item of one organization or mode is not in another.
    section = field(form, "back").strip("/").split("/")[0]
    return redirect(f"/{section}" if section in SECTIONS else "/overview", "switched")


# --- Overview, computers and printers -------------------------------------------------------


@router.get("/overview")
async def overview(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        printers = (await api.get("/v1/printers", limit=100))["data"]
        computers = (await api.get("/v1/computers", limit=100))["data"]
        jobs = (await api.get("/v1/printjobs", limit=5))["data"]
    online = sum(1 for printer in printers if printer["state"] == "online")
    return await p.render("overview.html", printers=printers, computers=computers, jobs=jobs, online=online)


@router.get("/printers")
async def printers_page(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        computers = (await api.get("/v1/computers", limit=100))["data"]
        printers = (await api.get("/v1/printers", limit=100))["data"]
    by_computer: dict[str, list[dict[str, Any]]] = {}
    for printer in printers:
        by_computer.setdefault(printer["computerId"], []).append(printer)
    return await p.render("printers.html", computers=computers, by_computer=by_computer)


# --- Printing and jobs ----------------------------------------------------------------------


@router.get("/print")
async def print_page(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        printers = (await api.get("/v1/printers", limit=100))["data"]
    chosen = p.request.query_params.get("printerId", "")
    return await p.render("print.html", printers=printers, chosen=chosen)


@router.post("/print")
async def print_pdf(p: SignedIn) -> Response:
    form = await p.form(UPLOAD_FORM_BYTES)
    upload = form.get("document")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise ApiError("invalid_request", "Choose a PDF file to print.")
    try:
        document = await upload.read(MAX_PDF_BYTES + 1)
    finally:
        await form.close()
    if len(document) > MAX_PDF_BYTES:
        raise ApiError("content_too_large", "The file is larger than 25 MB.")
    copies = field(form, "qty") or "1"
    if not copies.isdigit():
        raise ApiError("invalid_request", "Copies must be a whole number from 1 to 100.")
    body = {
        "printerId": field(form, "printerId"),
        "title": field(form, "title") or upload.filename,
        "contentType": "pdf_base64",
        "content": base64.b64encode(document).decode(),
        "source": "dashboard",
        "qty": int(copies),
    }
    async with p.api() as api:
        job = await api.post("/v1/printjobs", body)
    return redirect(f"/jobs/{job['id']}")


@router.get("/jobs")
async def jobs_page(p: SignedIn) -> HTMLResponse:
    query = p.request.query_params
    filters = {name: query.get(name, "") for name in ("state", "printerId", "after")}
    async with p.api() as api:
        page_ = await api.get(
            "/v1/printjobs", limit=25, state=filters["state"], printerId=filters["printerId"], after=filters["after"]
        )
        printers = (await api.get("/v1/printers", limit=100))["data"]
    return await p.render(
        "jobs.html", jobs=page_["data"], next_cursor=page_["nextCursor"] if page_["hasMore"] else None,
        filters=filters, states=JOB_STATES, printers=printers,
    )  # fmt: skip


@router.get("/jobs/{job_id}")
async def job_page(p: SignedIn, job_id: str) -> HTMLResponse:
    async with p.api() as api:
        job = await api.get(f"/v1/printjobs/{job_id}")
        history = (await api.get(f"/v1/printjobs/{job_id}/events"))["data"]
    return await p.render("job.html", job=job, history=history)


@router.post("/jobs/{job_id}/cancel")
async def cancel_job(p: SignedIn, job_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.post(f"/v1/printjobs/{job_id}/cancel")
    return redirect(f"/jobs/{job_id}", "cancelled")


@router.post("/jobs/{job_id}/reprint")
async def reprint_job(p: SignedIn, job_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        original = await api.get(f"/v1/printjobs/{job_id}")
        job = await api.post(
            "/v1/printjobs",
            # The spec's reprint form: these three fields and nothing else.
            {"printerId": original["printerId"], "title": original["title"], "reprintOf": job_id},
        )
    return redirect(f"/jobs/{job['id']}")


# --- Webhooks and events --------------------------------------------------------------------


@router.get("/webhooks")
async def webhooks_page(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        endpoints = (await api.get("/v1/webhooks", limit=100))["data"]
    return await p.render("webhooks.html", endpoints=endpoints, event_types=EVENT_TYPES)


@router.post("/webhooks")
async def create_webhook(p: SignedIn) -> HTMLResponse:
    form = await p.form()
    body: dict[str, Any] = {
        "url": field(form, "url"),
        "events": _events(form),
    }
    if field(form, "description"):
        body["description"] = field(form, "description")
    async with p.api() as api:
        endpoint = await api.post("/v1/webhooks", body)
    return await p.render("webhook_created.html", endpoint=endpoint)


@router.get("/webhooks/{endpoint_id}")
async def webhook_page(p: SignedIn, endpoint_id: str) -> HTMLResponse:
    async with p.api() as api:
        endpoint = await api.get(f"/v1/webhooks/{endpoint_id}")
        deliveries = (await api.get(f"/v1/webhooks/{endpoint_id}/deliveries", limit=50))["data"]
    return await p.render("webhook.html", endpoint=endpoint, deliveries=deliveries, event_types=EVENT_TYPES)


@router.post("/webhooks/{endpoint_id}")
async def edit_webhook(p: SignedIn, endpoint_id: str) -> Response:
    form = await p.form()
    body = {
        "url": field(form, "url"),
        "description": field(form, "description"),
        "events": _events(form),
    }
    async with p.api() as api:
        await api.patch(f"/v1/webhooks/{endpoint_id}", body)
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


@router.post("/webhooks/{endpoint_id}/delete")
async def delete_webhook(p: SignedIn, endpoint_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.delete(f"/v1/webhooks/{endpoint_id}")
    return redirect("/webhooks", "deleted")


@router.post("/webhooks/{endpoint_id}/deliveries/{delivery_id}/replay")
async def replay_delivery(p: SignedIn, endpoint_id: str, delivery_id: str) -> Response:
    await p.form()
    async with p.api() as api:
        await api.post(f"/v1/webhooks/deliveries/{delivery_id}/replay")
    return redirect(f"/webhooks/{endpoint_id}", "replayed")


@router.get("/events")
async def events_page(p: SignedIn) -> HTMLResponse:
    after = p.request.query_params.get("after", "")
    async with p.api() as api:
        page_ = await api.get("/v1/events", limit=50, after=after)
    return await p.render(
        "events.html", events=page_["data"], next_cursor=page_["nextCursor"] if page_["hasMore"] else None
    )


# --- Members, invitations and API keys ------------------------------------------------------


@router.get("/members")
async def members_page(p: SignedIn) -> HTMLResponse:
    members, invitations = await p.deps.organization.members(p.identity)
    can_manage = role_allows(p.identity.role, MANAGE)
    return await p.render("members.html", members=members, invitations=invitations, can_manage=can_manage)


@router.post("/members/invite")
async def invite(p: SignedIn) -> Response:
    form = await p.form()
    await p.deps.organization.invite(p.identity, field(form, "email"), field(form, "role"))
    return redirect("/members", "invited")


@router.post("/members/invitations/{invitation_id}/revoke")
async def revoke_invitation(p: SignedIn, invitation_id: str) -> Response:
    await p.form()
    await p.deps.organization.revoke_invitation(p.identity, invitation_id)
    return redirect("/members", "invitation-revoked")


@router.post("/members/{user_id}/remove")
async def remove_member(p: SignedIn, user_id: str) -> Response:
    await p.form()
    await p.deps.organization.remove_member(p.identity, user_id)
    return redirect("/members", "member-removed")


@router.get("/keys")
async def keys_page(p: SignedIn) -> HTMLResponse:
    keys = await p.deps.organization.api_keys(p.identity)
    return await p.render("keys.html", keys=keys)


@router.post("/keys")
async def create_key(p: SignedIn) -> HTMLResponse:
    form = await p.form()
    scopes = ",".join(s for s in form.getlist("scopes") if isinstance(s, str))
    created = await p.deps.organization.create_api_key(p.identity, field(form, "name"), field(form, "mode"), scopes)
    return await p.render("key_created.html", key=created)


@router.post("/keys/{key_id}/revoke")
async def revoke_key(p: SignedIn, key_id: str) -> Response:
    await p.form()
    await p.deps.organization.revoke_api_key(p.identity, key_id)
    return redirect("/keys", "key-revoked")
