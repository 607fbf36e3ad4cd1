"""Consumes `organization.created` to give each new organization its test-mode virtual computer,
and `organization.deleted` to delete every computer of a deleted organization."""

from __future__ import annotations

import logging

from printcloud.core.ids import parse_uuid
from printcloud.core.kafka.envelope import Message
from printcloud.devices.use_cases.organizations import OrganizationEvents

log = logging.getLogger(__name__)

ORGANIZATION_CREATED = "organization.created"
ORGANIZATION_DELETED = "organization.deleted"


class OrganizationEventsHandler:
    """A `printcloud.core.kafka.bus.Consumer` handler; the use case makes it idempotent by message id and
    by organization."""

    def __init__(self, organizations: OrganizationEvents) -> None:
        self.organizations = organizations

    @staticmethod
    def wants(message_type: str) -> bool:
        """The events read at all; the rest are passed over undecoded."""
        return message_type in (ORGANIZATION_CREATED, ORGANIZATION_DELETED)

    async def __call__(self, message: Message) -> None:
        if not self.wants(message.type):
            return
        message_id = parse_uuid(message.id)
        organization_id = parse_uuid(str(message.data.get("id", "")))
        if message_id is None or organization_id is None:
            # The consumer retries a failing handler forever; a malformed event would never pass.
            log.error(f"{message.type} without valid ids skipped", extra={"message_id": message.id})
            return
        if message.type == ORGANIZATION_DELETED:
            deleted = await self.organizations.organization_deleted(message_id, organization_id)
            log.info(
                "computers of a deleted organization deleted",
                extra={"organization_id": str(organization_id), "count": deleted},
            )
            return
        computer = await self.organizations.organization_created(message_id, organization_id)
        if computer is None:
            return
        log.info(
            "virtual computer ready",
            extra={"organization_id": str(organization_id), "computer_id": str(computer.id)},
        )
