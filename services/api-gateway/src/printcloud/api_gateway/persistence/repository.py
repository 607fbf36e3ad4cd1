"""Reads and writes of the gateway schema. Organizations are the tenants; every key is scoped to one."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import func, or_, select, update
from sqlalchemy.dialects.postgresql import insert

from printcloud.api_gateway.domain.accounts import Organization
from printcloud.api_gateway.domain.api_keys import NewApiKey
from printcloud.api_gateway.domain.identity import ApiKeyIdentity
from printcloud.api_gateway.persistence.tables import api_keys, memberships, organizations, outbox, users
from printcloud.core.db import Database
from printcloud.core.ids import uuid7
from printcloud.core.messages import Message
from printcloud.core.topics import DOMAIN_EVENTS

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
            .where(api_keys.c.key_hash == key_hash, api_keys.c.revoked_at.is_(None))
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
        """Creates the organization with its owner and announces it, in one transaction.

        `organization.created` is what makes the devices service build the test-mode virtual
        computer, so it must exist exactly when the organization does.
        """
        organization = Organization(id=str(uuid7()), name=name)
        async with self.db.transaction() as session:
            await session.execute(organizations.insert().values(id=uuid.UUID(organization.id), name=name))
            # The no-op update makes RETURNING yield the existing user's id as well as a new one's.
            user_id = await session.scalar(
                insert(users)
                .values(id=uuid7(), email=owner_email)
                .on_conflict_do_update(index_elements=[users.c.email], set_={"email": owner_email})
                .returning(users.c.id)
            )
            await session.execute(
                memberships.insert().values(organization_id=uuid.UUID(organization.id), user_id=user_id, role="owner")
            )
            await outbox.add(
                session,
                DOMAIN_EVENTS,
                organization.id,
                Message(
                    type="organization.created",
                    organization_id=organization.id,
                    mode="test",
                    # The webhooks service e-mails owners and may not read this schema: it learns them here.
                    data={"id": organization.id, "name": name, "ownerEmails": [owner_email]},
                ),
            )
        return organization

    async def create_api_key(self, organization_id: str, mode: str, scopes: tuple[str, ...], key: NewApiKey) -> str:
        """Stores `key` (hashed) for the organization; raises UnknownOrganization when there is none."""
        org_uuid = uuid.UUID(organization_id)
        key_id = uuid7()
        async with self.db.transaction() as session:
            exists = await session.scalar(select(organizations.c.id).where(organizations.c.id == org_uuid))
            if exists is None:
                raise UnknownOrganization(organization_id)
            await session.execute(
                api_keys.insert().values(
                    id=key_id,
                    organization_id=org_uuid,
                    mode=mode,
                    key_hash=key.key_hash,
                    key_prefix=key.display_prefix,
                    scopes=list(scopes),
                )
            )
        return str(key_id)

    async def set_plan(self, organization_id: str, plan: str) -> None:
        """Puts the organization on `plan`; raises UnknownOrganization when there is none."""
        async with self.db.transaction() as session:
            updated = await session.execute(
                update(organizations).where(organizations.c.id == uuid.UUID(organization_id)).values(plan=plan)
            )
            if updated.rowcount == 0:
                raise UnknownOrganization(organization_id)
