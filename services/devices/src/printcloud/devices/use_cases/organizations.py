"""What devices does when an organization is created (its virtual computer) or deleted (all its
computers), once per message."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.persistence.tables import processed_messages
from printcloud.devices.use_cases.state_changes import delete_computer
from printcloud.devices.use_cases.virtual_computers import ensure_virtual_computer

CONSUMER_GROUP = "devices"


@dataclass(frozen=True)
class OrganizationEvents:
    db: Database

    async def organization_created(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> ComputerRow | None:
        """The organization's virtual computer, once per message; None when the message was handled
        before."""
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return None
            return await ensure_virtual_computer(session, organization_id)

    async def organization_deleted(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> int:
        """Every computer of a deleted organization, of both modes and the virtual one included,
        deleted as a DELETE deletes one (agents disconnected, credentials revoked), once per
        message; how many were deleted."""
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return 0
            found = await repository.lock_computers_of_organization(session, organization_id)
            now = utcnow()
            for computer in found:
                await delete_computer(session, computer, now)
            return len(found)
