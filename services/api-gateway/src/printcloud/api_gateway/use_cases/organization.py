"""Managing an organization from the dashboard: its members, invitations and API keys.

Reading the members is open to every member; everything else needs the `manage` right, which
only owners have (domain/roles.py). API key callers never get it: keys cannot mint keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.api_gateway.domain.api_keys import MODES, NewApiKey, key_name, mint_api_key, parse_scopes
from printcloud.api_gateway.domain.email_address import mailbox
from printcloud.api_gateway.domain.identity import Identity, SessionIdentity
from printcloud.api_gateway.domain.roles import MANAGE, OWNER, check_role
from printcloud.api_gateway.persistence import api_keys, people
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.database import Database
from printcloud.core.ids import parse_uuid


def _id(value: str, what: str) -> str:
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return str(parsed)


def _user_of(identity: Identity) -> str | None:
    return identity.user_id if isinstance(identity, SessionIdentity) else None


@dataclass(frozen=True)
class CreatedKey:
    id: str
    name: str
    mode: str
    scopes: tuple[str, ...]
    secret: str


@dataclass
class Organization:
    db: Database

    async def members(self, identity: Identity) -> tuple[list[people.Member], list[people.Invitation]]:
        identity.authorize("read")
        async with self.db.read() as session:
            return (
                await people.members(session, identity.organization_id),
                await people.open_invitations(session, identity.organization_id),
            )

    async def invite(self, identity: Identity, email_text: str, role_text: str) -> None:
        identity.authorize(MANAGE)
        try:
            email, role = mailbox(email_text), check_role(role_text)
        except ValueError as exc:
            raise ApiError("invalid_request", str(exc)) from None
        inviter = _user_of(identity)
        assert inviter is not None  # only sessions have the manage right
        async with self.db.transaction() as session:
            existing = await people.user_id_by_email(session, email)
            if existing is not None and await people.role_of(session, identity.organization_id, existing):
                raise ApiError("conflict", f"{email} is already a member.")
            if not await people.add_invitation(session, identity.organization_id, email, role, inviter):
                raise ApiError("conflict", f"{email} already has an open invitation.")

    async def revoke_invitation(self, identity: Identity, invitation_id: str) -> None:
        identity.authorize(MANAGE)
        async with self.db.transaction() as session:
            if not await people.revoke_invitation(session, identity.organization_id, _id(invitation_id, "invitation")):
                raise not_found("invitation")

    async def remove_member(self, identity: Identity, user_id: str) -> None:
        identity.authorize(MANAGE)
        member = _id(user_id, "member")
        async with self.db.transaction() as session:
            role = await people.role_of(session, identity.organization_id, member)
            if role is None:
                raise not_found("member")
            # Locks the owners' rows, so two owners removing each other cannot both succeed.
            if role == OWNER and await people.owner_count(session, identity.organization_id) <= 1:
                raise ApiError("conflict", "The last owner cannot be removed.")
            await people.remove_member(session, identity.organization_id, member)

    async def api_keys(self, identity: Identity) -> list[api_keys.ListedKey]:
        identity.authorize(MANAGE)
        async with self.db.read() as session:
            return await api_keys.active_keys(session, identity.organization_id)

    async def create_api_key(self, identity: Identity, name_text: str, mode: str, scopes_text: str) -> CreatedKey:
        """The new key; its secret is in this answer and nowhere else, ever."""
        identity.authorize(MANAGE)
        if mode not in MODES:
            raise ApiError("invalid_request", f"Mode must be one of {', '.join(MODES)}.")
        try:
            name, scopes = key_name(name_text), parse_scopes(scopes_text)
        except ValueError as exc:
            raise ApiError("invalid_request", str(exc)) from None
        key: NewApiKey = mint_api_key(mode)
        async with self.db.transaction() as session:
            key_id = await api_keys.insert_key(
                session, identity.organization_id, name, mode, scopes, key, created_by=_user_of(identity)
            )
        return CreatedKey(key_id, name, mode, scopes, key.secret)

    async def revoke_api_key(self, identity: Identity, key_id: str) -> None:
        identity.authorize(MANAGE)
        async with self.db.transaction() as session:
            if not await api_keys.revoke_key(session, identity.organization_id, _id(key_id, "API key")):
                raise not_found("API key")
