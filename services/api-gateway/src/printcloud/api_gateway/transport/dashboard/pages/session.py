"""Signing in and out, switching organization or mode, and the dashboard's static files."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response

from printcloud.api_gateway.domain.sessions import COOKIE_NAME
from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.forms import read_form
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router, deps_of
from printcloud.api_gateway.transport.dashboard.web import (
    NOTICES,
    PREFIX,
    STATIC_DIR,
    check_origin,
    field,
    redirect,
    render,
)
from printcloud.contracts.errors import ApiError

router = dashboard_router()

# The address a code was asked for, so that the code page survives a reload without asking again.
EMAIL_COOKIE = "printcloud_sign_in_email"
STATIC_FILES = {
    "dashboard.css": "text/css",
    "dashboard.js": "text/javascript",
    "favicon.svg": "image/svg+xml",
}
# Sections a switch may return to: an item of one organization or mode is not in another.
SECTIONS = (
    "overview", "printers", "computers", "agents", "print", "jobs", "webhooks", "events", "usage", "members", "keys",
    "audit", "settings",
)  # fmt: skip


@router.get("/static/{name}")
async def static_file(name: str) -> Response:
    media_type = STATIC_FILES.get(name)
    if media_type is None:
        raise ApiError("not_found", "No such file.")
    return FileResponse(STATIC_DIR / name, media_type=media_type, headers={"Cache-Control": "max-age=300"})


@router.get("")
async def home(request: Request) -> RedirectResponse:
    return redirect("/overview" if request.cookies.get(COOKIE_NAME) else "/sign-in")


def _sign_in_form(request: Request, form: FormState, status: int = 200) -> HTMLResponse:
    notice = NOTICES.get(request.query_params.get("notice", ""), "")
    signup = deps_of(request).dashboard.signup
    return render(request, "sign_in.html", status, identity=None, notice=notice, signup=signup, form=form)


@router.get("/sign-in")
async def sign_in_page(request: Request) -> HTMLResponse:
    return _sign_in_form(request, EMPTY)


@router.post("/sign-in")
async def request_code(request: Request) -> Response:
    check_origin(request)
    form = await read_form(request)
    email = field(form, "email")
    client = request.client.host if request.client else "unknown"
    try:
        await deps_of(request).sign_in.request_code(email, client)
    except ApiError as exc:
        return _sign_in_form(
            request, FormState(sent(form), errors_of(exc, {}, {"invalid_request": "email"})), exc.status
        )
    response = redirect("/sign-in/code")
    settings = deps_of(request).dashboard
    response.set_cookie(
        EMAIL_COOKIE, email.lower(), max_age=int(settings.sign_in_code_seconds), path=PREFIX, httponly=True,
        samesite="lax", secure=request.url.scheme == "https",
    )  # fmt: skip
    return response


@router.get("/sign-in/code")
async def code_page(request: Request) -> Response:
    email = request.cookies.get(EMAIL_COOKIE, "")
    if not email:
        return redirect("/sign-in")
    notice = NOTICES.get(request.query_params.get("notice", ""), "")
    return render(request, "enter_code.html", identity=None, email=email, notice=notice)


@router.post("/verify")
async def verify_code(request: Request) -> Response:
    check_origin(request)
    form = await read_form(request)
    email = field(form, "email")
    try:
        signed_in = await deps_of(request).sign_in.verify_code(email, field(form, "code"))
    except ApiError as exc:
        if exc.code == "unauthorized":
            return redirect("/sign-in/code", "code-refused")
        raise
    response = redirect("/overview")
    settings = deps_of(request).dashboard
    response.set_cookie(
        COOKIE_NAME, signed_in.token, max_age=int(settings.session_absolute_seconds), path="/", httponly=True,
        samesite="lax", secure=request.url.scheme == "https",
    )  # fmt: skip
    response.delete_cookie(EMAIL_COOKIE, path=PREFIX)
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
    section = field(form, "back").strip("/").split("/")[0]
    return redirect(f"/{section}" if section in SECTIONS else "/overview", "switched")
