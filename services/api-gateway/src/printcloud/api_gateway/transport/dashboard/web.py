"""What every page shares: the session behind it, CSRF and origin checks on forms, rendering,
the rights the signed-in role has, and turning an error into a page that shows the API's message
(never a traceback)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from printcloud.api_gateway.domain.identity import SessionIdentity
from printcloud.api_gateway.domain.roles import CANCEL, MANAGE, role_allows
from printcloud.api_gateway.domain.sessions import COOKIE_NAME, CSRF_FIELD, csrf_matches, csrf_token
from printcloud.api_gateway.transport.dashboard import flash
from printcloud.api_gateway.transport.dashboard.api_client import ApiClient
from printcloud.api_gateway.transport.dashboard.confirmations import confirmation
from printcloud.api_gateway.transport.dashboard.forms import FORM_BYTES, read_form
from printcloud.api_gateway.transport.dashboard.rendering import templates
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.contracts.errors import ApiError
from printcloud.core.telemetry.request_ids import request_id_var

log = logging.getLogger(__name__)

PREFIX = "/dashboard"
STATIC_DIR = Path(__file__).parent / "static"

# Shown after a redirect; keys in the URL, so that no page ever echoes text from the query string.
NOTICES = {
    "session-ended": "Your session has ended. Sign in again.",
    "signed-out": "You are signed out.",
    "switched": "Switched.",
    "code-refused": (
        "This code is wrong, has expired or was already used. Check the e-mail, or ask for a new code: "
        "a code works once, for 10 minutes, and ends after 5 wrong tries."
    ),
    "invited": "Invitation sent by e-mail. It is accepted when that address signs in.",
    "invitation-revoked": "Invitation revoked.",
    "member-removed": "Member removed.",
    "role-changed": "Role changed.",
    "left": "You left the organization.",
    "organization-deleted": "The organization is deleted.",
    "renamed": "Organization renamed.",
    "key-revoked": "API key revoked.",
    "cancelled": "Print job cancelled.",
    "not-cancellable": "The agent has already received this job: it can no longer be cancelled.",
    "reprinted": "Reprint queued.",
    "saved": "Saved.",
    "pinged": "Ping queued.",
    "replayed": "Delivery queued again.",
    "deleted": "Deleted.",
    "secret-gone": "A secret is shown only once, on the page right after it was made.",
    "pairing-code-revoked": "Pairing code revoked: it enrols no more computers.",
}


@dataclass(frozen=True)
class Rights:
    """What the signed-in role may do, so that pages offer only that (docs/api.md, "Roles")."""

    role: str

    @property
    def manage(self) -> bool:
        """API keys, members, invitations, settings, the audit log."""
        return role_allows(self.role, MANAGE)

    @property
    def admin(self) -> bool:
        """Printers, computers, agent enrolment, webhook endpoints."""
        return role_allows(self.role, "admin")

    @property
    def cancel(self) -> bool:
        return role_allows(self.role, CANCEL)

    @property
    def print(self) -> bool:
        return role_allows(self.role, "print")


class SignInRequired(Exception):
    def __init__(self, notice: str = "") -> None:
        self.notice = notice


@dataclass(frozen=True)
class Page:
    """A signed-in page request: who, the token for API calls, and the form token."""

    request: Request
    identity: SessionIdentity
    token: str

    @property
    def deps(self) -> GatewayDeps:
        deps: GatewayDeps = self.request.app.state.deps
        return deps

    @property
    def csrf(self) -> str:
        return csrf_token(self.token)

    @property
    def can(self) -> Rights:
        return Rights(self.identity.role)

    def api(self) -> ApiClient:
        return ApiClient(self.request, self.token)

    async def form(self, max_bytes: int = FORM_BYTES) -> FormData:
        """The posted form, once its origin and CSRF token are checked."""
        check_origin(self.request)
        form = await read_form(self.request, max_bytes)
        if not csrf_matches(self.token, text(form, CSRF_FIELD)):
            raise ApiError(
                "forbidden", "This form has expired or came from another site. Reload the page and try again."
            )
        return form

    async def confirm(self, kind: str, name: str, action: str, back: str) -> HTMLResponse:
        """The confirmation page of a destructive action: its form posts to `action` (a path of
        the dashboard, as `back` is), the address the page itself was asked at."""
        return await self.render(
            "confirm.html", confirm=confirmation(kind, name), action=f"{PREFIX}{action}", back=f"{PREFIX}{back}"
        )

    def redirect_with_secret(self, path: str, secret: dict[str, Any]) -> RedirectResponse:
        """A 303 to the page at `path` (of the dashboard) that shows `secret` once (see `flash`)."""
        response = redirect(path)
        flash.keep(response, self.request, self.token, f"{PREFIX}{path}", secret)
        return response

    def secret(self) -> dict[str, Any] | None:
        """What `redirect_with_secret` left for this page, if it is still there."""
        return flash.read(self.request, self.token)

    async def render_secret(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        """`template` with the secret read, which this answer then deletes: a reload shows nothing."""
        response = await self.render(template, status, **context)
        flash.forget(response, self.request)
        return response

    async def show_secret(self, template: str, name: str, gone: str) -> Response:
        """The page of a secret shown once (as `name` in `template`), or, once it was shown, the
        page at `gone` saying so."""
        secret = self.secret()
        if secret is None:
            return redirect(gone, "secret-gone")
        return await self.render_secret(template, 200, **{name: secret})

    async def render(self, template: str, status: int = 200, **context: Any) -> HTMLResponse:
        organizations = await self.deps.sign_in.organizations(self.identity)
        return render(
            self.request, template, status, identity=self.identity, organizations=organizations, csrf=self.csrf,
            can=self.can, notice=NOTICES.get(self.request.query_params.get("notice", ""), ""), **context,
        )  # fmt: skip


def text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def field(form: FormData, name: str) -> str:
    return (text(form, name) or "").strip()


def values(form: FormData, name: str) -> list[str]:
    return [value for value in form.getlist(name) if isinstance(value, str)]


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = templates.get_template(template).render(prefix=PREFIX, path=request.url.path, **context)
    # Pages show data of one signed-in user: never cached, never framed.
    headers = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "Referrer-Policy": "same-origin"}
    return HTMLResponse(html, status_code=status, headers=headers)


def check_origin(request: Request) -> None:
    """Refuses a form posted from another site, signed in or not (sign-in forms included)."""
    origin = request.headers.get("origin")
    if origin and origin != "null":
        own = f"{request.url.scheme}://{request.url.netloc}"
        parts = urlsplit(origin)
        if f"{parts.scheme}://{parts.netloc}" != own:
            raise ApiError("forbidden", "Forms of this dashboard can only be sent from its own pages.")
    if request.headers.get("sec-fetch-site") == "cross-site":
        raise ApiError("forbidden", "Forms of this dashboard can only be sent from its own pages.")


async def page(request: Request) -> Page:
    """FastAPI dependency: the signed-in page, or a redirect to the sign-in page."""
    token = request.cookies.get(COOKIE_NAME)
    if not token:
        raise SignInRequired()
    identity = await request.app.state.deps.sign_in.identify(token)
    if identity is None:
        raise SignInRequired("Your session has ended. Sign in again.")
    return Page(request, identity, token)


def redirect(path: str, notice: str = "", **query: str) -> RedirectResponse:
    """A 303 to a page of the dashboard, as a relative path: whatever Host the request named, a
    redirect never sends the browser elsewhere."""
    shown = {name: value for name, value in query.items() if value}
    if notice:
        shown["notice"] = notice
    target = f"{PREFIX}{path}"
    if shown:
        target += ("&" if "?" in target else "?") + urlencode(shown)
    return RedirectResponse(target, status_code=303)


class DashboardRoute(APIRoute):
    """Answers errors of the dashboard's routes as pages, in the API's words."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handler(request: Request) -> Response:
            try:
                return await handle(request)
            except SignInRequired as exc:
                return redirect("/sign-in", "session-ended" if exc.notice else "")
            except ApiError as exc:
                return await error_page(request, exc)
            except (HTTPException, RequestValidationError):
                raise
            except Exception:
                log.exception("dashboard page failed", extra={"method": request.method, "path": request.url.path})
                return await error_page(request, ApiError("internal_error", "An internal error occurred."))

        return handler


async def error_page(request: Request, error: ApiError) -> HTMLResponse:
    """The error in the API's words, inside the signed-in layout when there is a live session."""
    token = request.cookies.get(COOKIE_NAME)
    identity = await request.app.state.deps.sign_in.identify(token) if token else None
    context: dict[str, Any] = {"error": error, "request_id": request_id_var.get()}
    if identity is not None and token:
        return await Page(request, identity, token).render("error.html", error.status, **context)
    return render(request, "error.html", error.status, identity=None, **context)
