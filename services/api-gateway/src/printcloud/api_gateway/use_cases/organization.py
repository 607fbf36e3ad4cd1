"""Managing an organization from the dashboard: its members, invitations, API keys and settings.

Reading the members is open to every member, and so is leaving; everything else needs the
`manage` right, which only owners have (domain/roles.py). API key callers never get it: keys
cannot mint keys. Each change is recorded in the audit log in its own transaction, and every
change to who the owners are is announced (`organization.owners_changed`) in that transaction too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.domain.accounts import organization_name
from printcloud.api_gateway.domain.api_keys import MODES, NewApiKey, key_name, mint_api_key, parse_scopes
from printcloud.api_gateway.domain.audit import Actor, Change, actor_of
from printcloud.api_gateway.domain.email_address import mailbox
from printcloud.api_gateway.domain.identity import Identity, SessionIdentity
from printcloud.api_gateway.domain.invitations import invitation_email
from printcloud.api_gateway.domain.roles import MANAGE, OWNER, check_role
from printcloud.api_gateway.persistence import api_keys, audit, organizations, people
from printcloud.api_gateway.use_cases import announcements
from printcloud.api_gateway.use_cases.mail import Mailer
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.ids import parse_uuid

LAST_OWNER = "An organization keeps at least one owner: make another member an owner first."
ONLY_OWNER = (
    "You are the organization's only owner. Make another member an owner first, or delete the organization in Settings."
)


def _id(value: str, what: str) -> str:
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return str(parsed)


def _invalid(exc: ValueError) -> ApiError:
    text = str(exc)
    return ApiError("invalid_request", f"{text[:1].upper()}{text[1:]}.")


def _session_of(identity: Identity) -> SessionIdentity:
    """The signed-in user behind an account action; only sessions have the rights that lead here."""
    if not isinstance(identity, SessionIdentity):
        raise ApiError("forbidden", "Only a signed-in user can do this, from the dashboard.")
    return identity


async def _owners_and_role(session: AsyncSession, organization_id: str, user_id: str) -> tuple[list[str], str]:
    """The owners, their rows locked until the transaction ends (so that the organization keeps
    one whatever runs at once), and the role of `user_id`, who must be a member."""
    owners = await people.lock_owners(session, organization_id)
    role = await people.role_of(session, organization_id, user_id)
    if role is None:
        raise not_found("member")
    return owners, role


@dataclass(frozen=True)
class CreatedKey:
    id: str
    name: str
    mode: str
    scopes: tuple[str, ...]
    secret: str


def _nothing() -> None:
    return None


@dataclass
class Organization:
    db: Database
    mailer: Mailer
    # Told once a change that ends keys has committed, so that this replica stops trusting the keys it
    # verified before its next request, not only once the database's notification reaches it.
    keys_ended: Callable[[], None] = field(default=_nothing)

    async def members(self, identity: Identity) -> tuple[list[people.Member], list[people.Invitation]]:
        identity.authorize("read")
        async with self.db.read() as session:
            return (
                await people.members(session, identity.organization_id),
                await people.open_invitations(session, identity.organization_id),
            )

    async def invite(self, identity: Identity, email_text: str, role_text: str, sign_in_url: str) -> str:
        """The invited address, once the invitation is stored; its e-mail goes out after that."""
        identity.authorize(MANAGE)
        inviter = _session_of(identity)
        try:
            email = mailbox(email_text)
        except ValueError as exc:
            raise ApiError("invalid_request", str(exc)) from None
        try:
            role = check_role(role_text)
        except ValueError as exc:
            raise _invalid(exc) from None
        async with self.db.transaction() as session:
            existing = await people.user_id_by_email(session, email)
            if existing is not None and await people.role_of(session, identity.organization_id, existing):
                raise ApiError("conflict", f"{email} is already a member.")
            if not await people.add_invitation(session, identity.organization_id, email, role, inviter.user_id):
                raise ApiError("conflict", f"{email} already has an open invitation.")
            await self._record(session, identity, Change("member.invited", email, email, {"role": role}))
        subject, body = invitation_email(identity.organization_name, inviter.email, role, sign_in_url)
        self.mailer.send_later("invitation", email, subject, body)
        return email

    async def revoke_invitation(self, identity: Identity, invitation_id: str) -> None:
        identity.authorize(MANAGE)
        async with self.db.transaction() as session:
            email = await people.revoke_invitation(session, identity.organization_id, _id(invitation_id, "invitation"))
            if email is None:
                raise not_found("invitation")
            await self._record(session, identity, Change("invitation.revoked", email, email))

    async def remove_member(self, identity: Identity, user_id: str) -> None:
        identity.authorize(MANAGE)
        member = _id(user_id, "member")
        async with self.db.transaction() as session:
            owners, role = await _owners_and_role(session, identity.organization_id, member)
            if owners == [member]:
                raise ApiError("conflict", ONLY_OWNER if member == _session_of(identity).user_id else LAST_OWNER)
            email = await people.email_of(session, member) or ""
            await people.remove_member(session, identity.organization_id, member)
            await self._record(session, identity, Change("member.removed", member, email, {"role": role}))
            if role == OWNER:
                await announcements.owners_changed(session, identity.organization_id)

    async def change_role(self, identity: Identity, user_id: str, role_text: str) -> None:
        identity.authorize(MANAGE)
        member = _id(user_id, "member")
        try:
            role = check_role(role_text)
        except ValueError as exc:
            raise _invalid(exc) from None
        async with self.db.transaction() as session:
            owners, current = await _owners_and_role(session, identity.organization_id, member)
            if current == role:
                return
            if owners == [member]:
                raise ApiError("conflict", LAST_OWNER)
            await people.set_role(session, identity.organization_id, member, role)
            email = await people.email_of(session, member) or ""
            change = Change("member.role_changed", member, email, {"from": current, "to": role})
            await self._record(session, identity, change)
            await announcements.owners_changed(session, identity.organization_id)

    async def leave(self, identity: Identity) -> None:
        """Any member may leave; the only owner may not (the organization would have none)."""
        user = _session_of(identity)
        async with self.db.transaction() as session:
            owners, role = await _owners_and_role(session, identity.organization_id, user.user_id)
            if owners == [user.user_id]:
                raise ApiError("conflict", ONLY_OWNER)
            await people.remove_member(session, identity.organization_id, user.user_id)
            await self._record(session, identity, Change("member.left", user.user_id, "", {"role": role}))
            if role == OWNER:
                await announcements.owners_changed(session, identity.organization_id)

    async def rename(self, identity: Identity, name_text: str) -> None:
        identity.authorize(MANAGE)
        try:
            name = organization_name(name_text)
        except ValueError as exc:
            raise _invalid(exc) from None
        async with self.db.transaction() as session:
            current = await organizations.lock(session, identity.organization_id)
            if current is None:
                raise not_found("organization")
            if current == name:
                return
            await organizations.rename(session, identity.organization_id, name)
            change = Change("organization.renamed", identity.organization_id, name, {"from": current, "to": name})
            await self._record(session, identity, change)

    async def delete(self, identity: Identity, confirmation: str) -> None:
        """Ends every way into the organization at once (docs/api.md, "Deleting an organization"):
        `confirmation` must be its name, typed by the owner."""
        identity.authorize(MANAGE)
        async with self.db.transaction() as session:
            name = await organizations.lock(session, identity.organization_id)
            if name is None:
                raise not_found("organization")
            if confirmation.strip() != name:
                raise ApiError("invalid_request", "Type the organization's name exactly to delete it.")
            revoked = await organizations.delete(session, identity.organization_id)
            change = Change("organization.deleted", identity.organization_id, name, {"revokedKeys": revoked})
            await self._record(session, identity, change)
            await announcements.organization_deleted(session, identity.organization_id, name)
        self.keys_ended()

    async def api_keys(self, identity: Identity) -> list[api_keys.ListedKey]:
        identity.authorize(MANAGE)
        async with self.db.read() as session:
            return await api_keys.active_keys(session, identity.organization_id)

    async def create_api_key(self, identity: Identity, name_text: str, mode: str, scopes_text: str) -> CreatedKey:
        """The new key; its secret is in this answer and nowhere else, ever."""
        identity.authorize(MANAGE)
        user = _session_of(identity)
        if mode not in MODES:
            raise ApiError("invalid_request", f"Mode must be one of {', '.join(MODES)}.")
        try:
            name, scopes = key_name(name_text), parse_scopes(scopes_text)
        except ValueError as exc:
            raise _invalid(exc) from None
        key: NewApiKey = mint_api_key(mode)
        async with self.db.transaction() as session:
            key_id = await api_keys.insert_key(
                session, identity.organization_id, name, mode, scopes, key, created_by=user.user_id
            )
            label = api_keys.key_label(name, key.display_prefix)
            change = Change("api_key.created", key_id, label, {"mode": mode, "scopes": list(scopes)})
            await self._record(session, identity, change)
        return CreatedKey(key_id, name, mode, scopes, key.secret)

    async def revoke_api_key(self, identity: Identity, key_id: str) -> None:
        identity.authorize(MANAGE)
        key = _id(key_id, "API key")
        async with self.db.transaction() as session:
            label = await api_keys.revoke_key(session, identity.organization_id, key)
            if label is None:
                raise not_found("API key")
            await self._record(session, identity, Change("api_key.revoked", key, label))
        self.keys_ended()

    async def audit_log(self, identity: Identity, page: PageRequest) -> Page[audit.Entry]:
        """The organization's entries and those of the caller's mode, for owners."""
        identity.authorize(MANAGE)
        async with self.db.read() as session:
            return await audit.entries(session, identity.organization_id, identity.mode, page)

    async def record(self, identity: Identity, change: Change) -> None:
        """A change another service made for this caller, recorded once its answer came back."""
        async with self.db.transaction() as session:
            await self._record(session, identity, change)

    @staticmethod
    async def _record(session: AsyncSession, identity: Identity, change: Change) -> None:
        actor: Actor = actor_of(identity)
        await audit.add(session, identity.organization_id, actor, change)
