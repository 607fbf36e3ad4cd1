"""The organization events, written to the outbox in the transaction of the change they announce."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.api_gateway.domain import organization_events
from printcloud.api_gateway.persistence import people
from printcloud.api_gateway.persistence.tables import outbox
from printcloud.core.kafka.topics import DOMAIN_EVENTS


async def organization_created(session: AsyncSession, organization_id: str, name: str, owner_email: str) -> None:
    message = organization_events.organization_created(organization_id, name, owner_email)
    await outbox.add(session, DOMAIN_EVENTS, organization_id, message)


async def owners_changed(session: AsyncSession, organization_id: str) -> None:
    """The owners as this transaction leaves them."""
    message = organization_events.owners_changed(organization_id, await people.owner_emails(session, organization_id))
    await outbox.add(session, DOMAIN_EVENTS, organization_id, message)


async def organization_deleted(session: AsyncSession, organization_id: str, name: str) -> None:
    message = organization_events.organization_deleted(organization_id, name)
    await outbox.add(session, DOMAIN_EVENTS, organization_id, message)
