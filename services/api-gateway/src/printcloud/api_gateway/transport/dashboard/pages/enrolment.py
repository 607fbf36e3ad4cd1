"""Adding computers: the steps page, pairing codes (made and shown once, listed, followed to the
computers they enrolled, revoked) and an enrolment key. All of it is an owner's: the API refuses a
member every pairing-code call, and these pages refuse a member before calling it."""

from __future__ import annotations

from starlette.responses import HTMLResponse, Response

from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FieldRefused, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.pages.fleet import VIRTUAL_OS
from printcloud.api_gateway.transport.dashboard.pages.lookups import MAX_LISTED, computers_by_id, every
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router
from printcloud.api_gateway.transport.dashboard.paging import page_of
from printcloud.api_gateway.transport.dashboard.pairing_form import (
    API_FIELDS,
    DEFAULTS,
    LIFETIME_UNITS,
    LIMITS,
    pairing_code_body,
)
from printcloud.api_gateway.transport.dashboard.web import PREFIX, Page, redirect
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.pairing import CreatedPairingCode

router = dashboard_router()

PAGE_SIZE = 25
CODES = "/agents/pairing-codes"
API_CODES = "/v1/agent/pairing-codes"
# A code's page follows its uses while it can still enrol.
LIVE_MS = 5000
# What the page that shows a new code once reads of it.
_SHOWN = (
    "id",
    "hint",
    "description",
    "mode",
    public_name(CreatedPairingCode, lambda code: code.maxUses),
    public_name(CreatedPairingCode, lambda code: code.expiresAt),
    "code",
)


def _owner_only(p: Page) -> None:
    p.identity.authorize("admin")


def _server(p: Page) -> str:
    """This service as agents reach it: `--server` in every command shown."""
    return p.deps.dashboard.public_url.rstrip("/")


# --- The steps ------------------------------------------------------------------------------


async def _first_agent_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        computers = [c for c in await every(api, "/v1/computers") if c["os"] != VIRTUAL_OS]
    return await p.render_secret(
        "first_agent.html", status, computers=computers, key=p.secret(), server=_server(p), limits=LIMITS,
        units=LIFETIME_UNITS, form=form if form.values else FormState(DEFAULTS, form.errors),
    )  # fmt: skip


@router.get("/agents/new")
async def first_agent_page(p: SignedIn) -> HTMLResponse:
    return await _first_agent_page(p)


@router.post("/agents/key")
async def enrolment_key(p: SignedIn) -> Response:
    """An admin key of the current mode, for `printcloud-agent enroll`, shown once on the steps page."""
    await p.form()
    created = await p.deps.organization.create_api_key(p.identity, "Agent enrolment", p.identity.mode, "admin")
    return p.redirect_with_secret("/agents/new", {"secret": created.secret, "name": created.name})


# --- Pairing codes --------------------------------------------------------------------------


@router.post("/agents/new")
async def make_pairing_code(p: SignedIn) -> Response:
    """The steps page's form: a refusal shows that page again, at its own address."""
    _owner_only(p)
    form = await p.form()
    try:
        body = pairing_code_body(form)
        async with p.api() as api:
            made = await api.post(API_CODES, body)
    except FieldRefused as refused:
        return await _first_agent_page(p, refused.state(form), 400)
    except ApiError as exc:
        if exc.code not in ("invalid_request", "conflict"):
            raise
        return await _first_agent_page(p, FormState(sent(form), errors_of(exc, API_FIELDS)), exc.status)
    shown = {name: made[name] for name in _SHOWN}
    return p.redirect_with_secret(f"{CODES}/created", shown)


@router.get(f"{CODES}/created")
async def pairing_code_created(p: SignedIn) -> Response:
    _owner_only(p)
    secret = p.secret()
    if secret is None:
        return redirect(CODES, "secret-gone")
    return await p.render_secret("pairing_code_created.html", code=secret, server=_server(p))


@router.get(CODES)
async def pairing_codes_page(p: SignedIn) -> HTMLResponse:
    _owner_only(p)
    params = p.request.query_params
    async with p.api() as api:
        codes, pager = await page_of(api, API_CODES, {}, params.get("after", ""), params.get("before", ""), PAGE_SIZE)
    return await p.render("pairing_codes.html", codes=codes, pages=pager.links(f"{PREFIX}{CODES}", {}))


@router.get(f"{CODES}/{{code_id}}")
async def pairing_code_page(p: SignedIn, code_id: str) -> HTMLResponse:
    _owner_only(p)
    params = p.request.query_params
    path = f"{API_CODES}/{code_id}"
    async with p.api() as api:
        code = await api.get(path)
        enrollments, pager = await page_of(
            api, f"{path}/enrollments", {}, params.get("after", ""), params.get("before", ""), PAGE_SIZE
        )
        computers = await computers_by_id(api)
    return await p.render(
        "pairing_code.html", code=code, enrollments=enrollments, computers=computers,
        # Past MAX_LISTED computers, one missing from the lookup may still exist.
        all_computers_known=len(computers) < MAX_LISTED, live=LIVE_MS if code["state"] == "active" else "off",
        pages=pager.links(f"{PREFIX}{CODES}/{code_id}", {}),
    )  # fmt: skip


@router.get(f"{CODES}/{{code_id}}/revoke")
async def confirm_revoke_pairing_code(p: SignedIn, code_id: str) -> HTMLResponse:
    _owner_only(p)
    async with p.api() as api:
        code = await api.get(f"{API_CODES}/{code_id}")
    action = f"{CODES}/{code_id}/revoke"
    return await p.confirm("revoke-pairing-code", f"{code['hint']}-…", action, f"{CODES}/{code_id}")


@router.post(f"{CODES}/{{code_id}}/revoke")
async def revoke_pairing_code(p: SignedIn, code_id: str) -> Response:
    _owner_only(p)
    await p.form()
    async with p.api() as api:
        await api.delete(f"{API_CODES}/{code_id}")
    return redirect(CODES, "pairing-code-revoked")
