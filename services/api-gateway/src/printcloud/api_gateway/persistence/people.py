"""Users, memberships and invitations: reads and writes inside the caller's transaction."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.persistence.tables import invitations, memberships, organizations, users
from printcloud.core.db.database import rows_affected
from printcloud.core.ids import uuid7


@dataclass(frozen=True)
class Membership:
    organization_id: str
    organization_name: str
    plan: str
    role: str


@dataclass(frozen=True)
class Member:
    user_id: str
    email: str
    role: str
    joined_at: datetime


@dataclass(frozen=True)
class Invitation:
    id: str
    email: str
    role: str
    invited_by: str
    created_at: datetime


async def user_id_by_email(session: AsyncSession, email: str) -> str | None:
    found = await session.scalar(select(users.c.id).where(users.c.email == email))
    return str(found) if found is not None else None


async def ensure_user(session: AsyncSession, email: str) -> str:
    # The no-op update makes RETURNING yield the existing user's id as well as a new one's.
    user_id = await session.scalar(
        insert(users)
        .values(id=uuid7(), email=email)
        .on_conflict_do_update(index_elements=[users.c.email], set_={"email": email})
        .returning(users.c.id)
    )
    return str(user_id)


async def insert_organization(session: AsyncSession, name: str, owner_id: str) -> str:
    """The organization with its owner; the caller announces it in the same transaction."""
    organization_id = str(uuid7())
    await session.execute(organizations.insert().values(id=uuid.UUID(organization_id), name=name))
    await session.execute(
        memberships.insert().values(organization_id=uuid.UUID(organization_id), user_id=owner_id, role="owner")
    )
    return organization_id


async def memberships_of(session: AsyncSession, user_id: str) -> list[Membership]:
    rows = await session.execute(
        select(memberships.c.organization_id, organizations.c.name, organizations.c.plan, memberships.c.role)
        .join(organizations, organizations.c.id == memberships.c.organization_id)
        .where(memberships.c.user_id == uuid.UUID(user_id), organizations.c.deleted_at.is_(None))
        .order_by(memberships.c.created_at, organizations.c.name)
    )
    return [Membership(str(r.organization_id), r.name, r.plan, r.role) for r in rows]


async def members(session: AsyncSession, organization_id: str) -> list[Member]:
    rows = await session.execute(
        select(users.c.id, users.c.email, memberships.c.role, memberships.c.created_at)
        .join(users, users.c.id == memberships.c.user_id)
        .where(memberships.c.organization_id == uuid.UUID(organization_id))
        .order_by(memberships.c.created_at)
    )
    return [Member(str(r.id), r.email, r.role, r.created_at) for r in rows]


async def lock_owners(session: AsyncSession, organization_id: str) -> list[str]:
    """The owners' user ids, their rows locked until the transaction ends: two owners removing
    each other (or both leaving) cannot both succeed, so an organization always keeps one owner.
    (PostgreSQL refuses FOR UPDATE on an aggregate, hence the rows and not a count.)"""
    rows = await session.execute(
        select(memberships.c.user_id)
        .where(memberships.c.organization_id == uuid.UUID(organization_id), memberships.c.role == "owner")
        .order_by(memberships.c.user_id)
        .with_for_update()
    )
    return [str(user_id) for user_id in rows.scalars()]


async def owner_emails(session: AsyncSession, organization_id: str) -> list[str]:
    rows = await session.execute(
        select(users.c.email)
        .join(memberships, memberships.c.user_id == users.c.id)
        .where(memberships.c.organization_id == uuid.UUID(organization_id), memberships.c.role == "owner")
        .order_by(users.c.email)
    )
    return list(rows.scalars())


async def set_role(session: AsyncSession, organization_id: str, user_id: str, role: str) -> bool:
    changed = await rows_affected(
        session,
        update(memberships)
        .where(memberships.c.organization_id == uuid.UUID(organization_id), memberships.c.user_id == uuid.UUID(user_id))
        .values(role=role),
    )
    return changed > 0


async def email_of(session: AsyncSession, user_id: str) -> str | None:
    return await session.scalar(select(users.c.email).where(users.c.id == uuid.UUID(user_id)))


async def remove_member(session: AsyncSession, organization_id: str, user_id: str) -> bool:
    removed = await rows_affected(
        session,
        memberships.delete().where(
            memberships.c.organization_id == uuid.UUID(organization_id), memberships.c.user_id == uuid.UUID(user_id)
        ),
    )
    return removed > 0


async def role_of(session: AsyncSession, organization_id: str, user_id: str) -> str | None:
    return await session.scalar(
        select(memberships.c.role).where(
            memberships.c.organization_id == uuid.UUID(organization_id), memberships.c.user_id == uuid.UUID(user_id)
        )
    )


_OPEN = invitations.c.accepted_at.is_(None) & invitations.c.revoked_at.is_(None)


async def open_invitations(session: AsyncSession, organization_id: str) -> list[Invitation]:
    rows = await session.execute(
        select(
            invitations.c.id,
            invitations.c.email,
            invitations.c.role,
            users.c.email.label("by"),
            invitations.c.created_at,
        )
        .join(users, users.c.id == invitations.c.invited_by)
        .where(invitations.c.organization_id == uuid.UUID(organization_id), _OPEN)
        .order_by(invitations.c.created_at)
    )
    return [Invitation(str(r.id), r.email, r.role, r.by, r.created_at) for r in rows]


async def is_invited(session: AsyncSession, email: str) -> bool:
    found = await session.scalar(select(invitations.c.id).where(invitations.c.email == email, _OPEN).limit(1))
    return found is not None


async def add_invitation(session: AsyncSession, organization_id: str, email: str, role: str, by: str) -> bool:
    """False when the address already has an open invitation to the organization."""
    added = await rows_affected(
        session,
        insert(invitations)
        .values(id=uuid7(), organization_id=uuid.UUID(organization_id), email=email, role=role, invited_by=by)
        .on_conflict_do_nothing(),
    )
    return added > 0


async def revoke_invitation(session: AsyncSession, organization_id: str, invitation_id: str) -> str | None:
    """The revoked invitation's address; None when the organization has no such open invitation."""
    email: str | None = await session.scalar(
        update(invitations)
        .where(
            invitations.c.id == uuid.UUID(invitation_id),
            invitations.c.organization_id == uuid.UUID(organization_id),
            _OPEN,
        )
        .values(revoked_at=func.now())
        .returning(invitations.c.email)
    )
    return email


@dataclass(frozen=True)
class Joined:
    organization_id: str
    role: str


async def accept_invitations(session: AsyncSession, email: str, user_id: str) -> list[Joined]:
    """Turns every open invitation of the address into a membership (an existing one is kept);
    the memberships made, so that the caller can record and announce them."""
    accepted = await session.execute(
        update(invitations)
        .where(invitations.c.email == email, _OPEN)
        .values(accepted_at=func.now())
        .returning(invitations.c.organization_id, invitations.c.role)
    )
    joined = []
    for row in accepted.all():
        added = await rows_affected(
            session,
            insert(memberships)
            .values(organization_id=row.organization_id, user_id=uuid.UUID(user_id), role=row.role)
            .on_conflict_do_nothing(),
        )
        if added:
            joined.append(Joined(str(row.organization_id), row.role))
    return joined
