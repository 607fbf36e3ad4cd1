"""What webhooks keeps of an organization: the owners it e-mails, and nothing once it is deleted."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from printcloud.core.db.database import Database
from printcloud.webhooks.persistence import endpoints, mail
from printcloud.webhooks.persistence.tables import processed_messages
from printcloud.webhooks.use_cases.feed import CONSUMER_GROUP


class Organizations:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def replace_owners(self, message_id: uuid.UUID, organization_id: uuid.UUID, emails: Sequence[str]) -> None:
        """The addresses e-mailed about the organization's endpoints, once per message."""
        async with self.db.transaction() as session:
            if await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                await mail.replace_owners(session, organization_id, [email.lower() for email in emails])

    async def forget(self, message_id: uuid.UUID, organization_id: uuid.UUID) -> None:
        """A deleted organization: its endpoints of both modes deleted (their deliveries and logs go
        with them, so nothing more is sent) and no owner left to e-mail, once per message."""
        async with self.db.transaction() as session:
            if await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                await endpoints.delete_all_of(session, organization_id)
                await mail.replace_owners(session, organization_id, [])
