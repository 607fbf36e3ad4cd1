"""Consumes `organization.created` to give each new organization its test-mode virtual computer."""

from __future__ import annotations

import logging

from printcloud.core.db import Database
from printcloud.core.ids import parse_uuid
from printcloud.core.messages import Message
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.tables import processed_messages

log = logging.getLogger(__name__)

CONSUMER_GROUP = "devices"
ORGANIZATION_CREATED = "organization.created"


class OrganizationEventsHandler:
    """A `printcloud.core.bus.Consumer` handler, idempotent by message id and by organization."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def __call__(self, message: Message) -> None:
        if message.type != ORGANIZATION_CREATED:
            return
        message_id = parse_uuid(message.id)
        organization_id = parse_uuid(str(message.data.get("id", "")))
        if message_id is None or organization_id is None:
            # The consumer retries a failing handler forever; a malformed event would never pass.
            log.error("organization.created without valid ids skipped", extra={"message_id": message.id})
            return
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return
            computer = await repository.ensure_virtual_computer(session, organization_id)
        log.info(
            "virtual computer ready",
            extra={"organization_id": str(organization_id), "computer_id": str(computer.id)},
        )
