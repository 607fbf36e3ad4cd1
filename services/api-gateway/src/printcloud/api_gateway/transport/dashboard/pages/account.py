"""The organization itself: members and invitations, API keys (shown once), usage and plan,
settings (rename, leave, delete) and the audit log."""

from __future__ import annotations

from starlette.responses import HTMLResponse, Response

from printcloud.api_gateway.domain.api_keys import MODES, SCOPES
from printcloud.api_gateway.domain.invitations import ROLE_SUMMARIES
from printcloud.api_gateway.domain.roles import ROLES
from printcloud.api_gateway.transport.dashboard.confirmations import confirmation
from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router
from printcloud.api_gateway.transport.dashboard.paging import pager_for
from printcloud.api_gateway.transport.dashboard.web import PREFIX, Page, field, redirect, values
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.paging import PageRequest

router = dashboard_router()


# --- Members and invitations ----------------------------------------------------------------


async def _members_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    members, invitations = await p.deps.organization.members(p.identity)
    return await p.render(
        "members.html", status, members=members, invitations=invitations, roles=ROLES, summaries=ROLE_SUMMARIES,
        form=form,
    )  # fmt: skip


@router.get("/members")
async def members_page(p: SignedIn) -> HTMLResponse:
    return await _members_page(p)


@router.post("/members/invite")
async def invite(p: SignedIn) -> Response:
    form = await p.form()
    sign_in_url = f"{p.deps.dashboard.public_url.rstrip('/')}{PREFIX}/sign-in"
    try:
        await p.deps.organization.invite(p.identity, field(form, "email"), field(form, "role"), sign_in_url)
    except ApiError as exc:
        if exc.code not in ("invalid_request", "conflict"):
            raise
        errors = errors_of(exc, {}, {"invalid_request": "email", "conflict": "email"})
        return await _members_page(p, FormState(sent(form), errors), exc.status)
    return redirect("/members", "invited")


async def _member_email(p: Page, user_id: str) -> str:
    members, _ = await p.deps.organization.members(p.identity)
    for member in members:
        if member.user_id == user_id:
            return member.email
    raise not_found("member")


@router.get("/members/{user_id}/remove")
async def confirm_remove_member(p: SignedIn, user_id: str) -> HTMLResponse:
    email = await _member_email(p, user_id)
    return await p.confirm("remove-member", email, f"/members/{user_id}/remove", "/members")


@router.post("/members/{user_id}/remove")
async def remove_member(p: SignedIn, user_id: str) -> Response:
    await p.form()
    await p.deps.organization.remove_member(p.identity, user_id)
    return redirect("/members", "member-removed")


@router.post("/members/{user_id}/role")
async def change_role(p: SignedIn, user_id: str) -> Response:
    form = await p.form()
    await p.deps.organization.change_role(p.identity, user_id, field(form, "role"))
    return redirect("/members", "role-changed")


@router.get("/members/invitations/{invitation_id}/revoke")
async def confirm_revoke_invitation(p: SignedIn, invitation_id: str) -> HTMLResponse:
    _, invitations = await p.deps.organization.members(p.identity)
    invitation = next((i for i in invitations if i.id == invitation_id), None)
    if invitation is None:
        raise not_found("invitation")
    action = f"/members/invitations/{invitation_id}/revoke"
    return await p.confirm("revoke-invitation", invitation.email, action, "/members")


@router.post("/members/invitations/{invitation_id}/revoke")
async def revoke_invitation(p: SignedIn, invitation_id: str) -> Response:
    await p.form()
    await p.deps.organization.revoke_invitation(p.identity, invitation_id)
    return redirect("/members", "invitation-revoked")


# --- API keys -------------------------------------------------------------------------------


async def _keys_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    keys = await p.deps.organization.api_keys(p.identity)
    return await p.render("keys.html", status, keys=keys, form=form, modes=MODES, scopes=SCOPES)


@router.get("/keys")
async def keys_page(p: SignedIn) -> HTMLResponse:
    return await _keys_page(p)


@router.post("/keys")
async def create_key(p: SignedIn) -> Response:
    form = await p.form()
    scopes = ",".join(values(form, "scopes"))
    try:
        created = await p.deps.organization.create_api_key(p.identity, field(form, "name"), field(form, "mode"), scopes)
    except ApiError as exc:
        if exc.code != "invalid_request":
            raise
        state = FormState(sent(form, lists=("scopes",)), {_key_field(exc.message): exc.message})
        return await _keys_page(p, state, exc.status)
    shown = {"name": created.name, "mode": created.mode, "scopes": list(created.scopes), "secret": created.secret}
    return p.redirect_with_secret("/keys/created", shown)


def _key_field(message: str) -> str:
    lowered = message.lower()
    return "scopes" if "scope" in lowered else "mode" if "mode" in lowered else "name"


@router.get("/keys/created")
async def key_created(p: SignedIn) -> Response:
    return await p.show_secret("key_created.html", "key", gone="/keys")


@router.get("/keys/{key_id}/revoke")
async def confirm_revoke_key(p: SignedIn, key_id: str) -> HTMLResponse:
    keys = await p.deps.organization.api_keys(p.identity)
    key = next((k for k in keys if k.id == key_id), None)
    if key is None:
        raise not_found("API key")
    return await p.confirm("revoke-key", key.name or f"{key.prefix}…", f"/keys/{key_id}/revoke", "/keys")


@router.post("/keys/{key_id}/revoke")
async def revoke_key(p: SignedIn, key_id: str) -> Response:
    await p.form()
    await p.deps.organization.revoke_api_key(p.identity, key_id)
    return redirect("/keys", "key-revoked")


# --- Usage and plan -------------------------------------------------------------------------


@router.get("/usage")
async def usage_page(p: SignedIn) -> HTMLResponse:
    async with p.api() as api:
        usage = await api.get("/v1/usage")
    plans = sorted(p.deps.plans.quotas.items(), key=lambda plan: plan[1])
    return await p.render("usage.html", usage=usage, plans=plans)


# --- Settings -------------------------------------------------------------------------------


async def _settings_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    members, _ = await p.deps.organization.members(p.identity)
    owners = [member for member in members if member.role == "owner"]
    only_owner = [owner.user_id for owner in owners] == [p.identity.user_id]
    return await p.render(
        "settings.html", status, form=form, only_owner=only_owner, member_count=len(members),
        leave=confirmation("leave", p.identity.organization_name),
    )  # fmt: skip


@router.get("/settings")
async def settings_page(p: SignedIn) -> HTMLResponse:
    return await _settings_page(p)


@router.post("/settings/name")
async def rename_organization(p: SignedIn) -> Response:
    form = await p.form()
    try:
        await p.deps.organization.rename(p.identity, field(form, "name"))
    except ApiError as exc:
        if exc.code != "invalid_request":
            raise
        return await _settings_page(p, FormState(sent(form), {"name": exc.message}), exc.status)
    return redirect("/settings", "renamed")


@router.get("/settings/leave")
async def confirm_leave(p: SignedIn) -> HTMLResponse:
    return await p.confirm("leave", p.identity.organization_name, "/settings/leave", "/settings")


@router.post("/settings/leave")
async def leave(p: SignedIn) -> Response:
    await p.form()
    await p.deps.organization.leave(p.identity)
    return await _to_another_organization(p, "left")


@router.post("/settings/delete")
async def delete_organization(p: SignedIn) -> Response:
    form = await p.form()
    try:
        await p.deps.organization.delete(p.identity, field(form, "confirm_name"))
    except ApiError as exc:
        if exc.code != "invalid_request":
            raise
        return await _settings_page(p, FormState(sent(form), {"confirm_name": exc.message}), exc.status)
    return await _to_another_organization(p, "organization-deleted")


async def _to_another_organization(p: Page, notice: str) -> Response:
    """After leaving or deleting: on to another organization of the user, else signed out."""
    remaining = await p.deps.sign_in.organizations(p.identity)
    if remaining:
        await p.deps.sign_in.switch(p.identity, remaining[0].organization_id, "test")
        return redirect("/overview", notice)
    await p.deps.sign_in.sign_out(p.token)
    return redirect("/sign-in", notice)


# --- Audit log ------------------------------------------------------------------------------


@router.get("/audit")
async def audit_page(p: SignedIn) -> HTMLResponse:
    params = p.request.query_params
    after, before = params.get("after", ""), params.get("before", "")
    direction = "asc" if before else "desc"
    page = await p.deps.organization.audit_log(p.identity, PageRequest.parse("50", before or after or None, direction))
    entries = list(reversed(page.items)) if before else list(page.items)
    pager = pager_for([entry.id for entry in entries], page.has_more, after=after, before=before)
    return await p.render("audit.html", entries=entries, pages=pager.links(f"{PREFIX}/audit", {}))
