"""The accounts behind API keys: who a key is, and the operator's commands (`printcloud admin`)
that make organizations and keys, set plans and revoke keys across organizations."""

from __future__ import annotations

from datetime import timedelta

from printcloud.api_gateway.domain.accounts import Organization
from printcloud.api_gateway.domain.api_keys import NewApiKey
from printcloud.api_gateway.domain.identity import ApiKeyIdentity
from printcloud.api_gateway.persistence import api_keys, organizations, people
from printcloud.api_gateway.use_cases import announcements
from printcloud.core.db.database import Database

# Recording every use would turn each API read into a write; minute precision is plenty.
LAST_USED_PRECISION = timedelta(minutes=1)


class UnknownOrganization(LookupError):
    pass


class Accounts:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def identify(self, key_hash: str) -> ApiKeyIdentity | None:
        """The identity behind an unrevoked key of a live organization, or None."""
        async with self.db.transaction() as session:
            holder = await api_keys.holder_of(session, key_hash)
            if holder is None:
                return None
            await api_keys.mark_used(session, holder.id, LAST_USED_PRECISION)
        return ApiKeyIdentity(
            api_key_id=str(holder.id),
            organization_id=str(holder.organization_id),
            organization_name=holder.organization_name,
            plan=holder.plan,
            mode=holder.mode,
            scopes=frozenset(holder.scopes),
        )

    async def create_organization(self, name: str, owner_email: str) -> Organization:
        """Creates the organization with its owner and announces it, in one transaction."""
        async with self.db.transaction() as session:
            owner_id = await people.ensure_user(session, owner_email)
            organization_id = await people.insert_organization(session, name, owner_id)
            # What makes the devices service build the test-mode virtual computer.
            await announcements.organization_created(session, organization_id, name, owner_email)
        return Organization(id=organization_id, name=name)

    async def create_api_key(
        self, organization_id: str, mode: str, scopes: tuple[str, ...], key: NewApiKey, name: str = ""
    ) -> str:
        """Stores `key` (hashed) for the organization; raises UnknownOrganization when there is none."""
        async with self.db.transaction() as session:
            if not await organizations.is_live(session, organization_id):
                raise UnknownOrganization(organization_id)
            return await api_keys.insert_key(session, organization_id, name, mode, scopes, key, created_by=None)

    async def revoke_api_key(self, key_id: str) -> bool:
        """The operator's revocation, of any organization's key: False when no active key has the id.
        Every replica forgets the keys it verified when the database notifies it of the change."""
        async with self.db.transaction() as session:
            return await api_keys.revoke_any(session, key_id)

    async def set_plan(self, organization_id: str, plan: str) -> None:
        """Puts the organization on `plan`; raises UnknownOrganization when there is none."""
        async with self.db.transaction() as session:
            if not await organizations.set_plan(session, organization_id, plan):
                raise UnknownOrganization(organization_id)
