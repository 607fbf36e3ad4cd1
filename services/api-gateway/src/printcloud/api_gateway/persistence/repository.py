"""Reads and writes of the gateway schema. Organizations are the tenants; every key is scoped to one."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import func, or_, select, update

from printcloud.api_gateway.domain.accounts import Organization
from printcloud.api_gateway.domain.api_keys import NewApiKey
from printcloud.api_gateway.domain.identity import ApiKeyIdentity
from printcloud.api_gateway.persistence import people
from printcloud.api_gateway.persistence.api_keys import insert_key
from printcloud.api_gateway.persistence.tables import api_keys, organizations
from printcloud.core.db.database import Database, rows_affected

# Recording every use would turn each API read into a write; minute precision is plenty.
LAST_USED_PRECISION = timedelta(minutes=1)


class UnknownOrganization(LookupError):
    pass


class AccountsRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def identify(self, key_hash: str) -> ApiKeyIdentity | None:
        """The identity behind an unrevoked key, or None."""
        query = (
            select(
                api_keys.c.id,
                api_keys.c.organization_id,
                api_keys.c.mode,
                api_keys.c.scopes,
                organizations.c.name,
                organizations.c.plan,
            )
            .join(organizations, organizations.c.id == api_keys.c.organization_id)
            .where(
                api_keys.c.key_hash == key_hash,
                api_keys.c.revoked_at.is_(None),
                organizations.c.deleted_at.is_(None),
            )
        )
        async with self.db.transaction() as session:
            row = (await session.execute(query)).one_or_none()
            if row is None:
                return None
            await session.execute(
                update(api_keys)
                .where(
                    api_keys.c.id == row.id,
                    or_(
                        api_keys.c.last_used_at.is_(None),
                        api_keys.c.last_used_at < func.now() - LAST_USED_PRECISION,
                    ),
                )
                .values(last_used_at=func.now())
            )
        return ApiKeyIdentity(
            api_key_id=str(row.id),
            organization_id=str(row.organization_id),
            organization_name=row.name,
            plan=row.plan,
            mode=row.mode,
            scopes=frozenset(row.scopes),
        )

    async def create_organization(self, name: str, owner_email: str) -> Organization:
        """Creates the organization with its owner and announces it, in one transaction."""
        async with self.db.transaction() as session:
            owner_id = await people.ensure_user(session, owner_email)
            organization_id = await people.insert_organization(session, name, owner_id, owner_email)
        return Organization(id=organization_id, name=name)

    async def create_api_key(
        self, organization_id: str, mode: str, scopes: tuple[str, ...], key: NewApiKey, name: str = ""
    ) -> str:
        """Stores `key` (hashed) for the organization; raises UnknownOrganization when there is none."""
        async with self.db.transaction() as session:
            exists = await session.scalar(
                select(organizations.c.id).where(
                    organizations.c.id == uuid.UUID(organization_id), organizations.c.deleted_at.is_(None)
                )
            )
            if exists is None:
                raise UnknownOrganization(organization_id)
            return await insert_key(session, organization_id, name, mode, scopes, key, created_by=None)

    async def revoke_api_key(self, key_id: str) -> bool:
        """The operator's revocation, of any organization's key: False when no active key has the id.
        Keys are looked up on every request, so the next one with it is refused on every replica."""
        async with self.db.transaction() as session:
            revoked = await rows_affected(
                session,
                update(api_keys)
                .where(api_keys.c.id == uuid.UUID(key_id), api_keys.c.revoked_at.is_(None))
                .values(revoked_at=func.now()),
            )
            return revoked > 0

    async def set_plan(self, organization_id: str, plan: str) -> None:
        """Puts the organization on `plan`; raises UnknownOrganization when there is none."""
        async with self.db.transaction() as session:
            updated = await rows_affected(
                session,
                update(organizations)
                .where(organizations.c.id == uuid.UUID(organization_id), organizations.c.deleted_at.is_(None))
                .values(plan=plan),
            )
            if updated == 0:
                raise UnknownOrganization(organization_id)
