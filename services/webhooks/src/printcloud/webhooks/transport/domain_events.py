"""Consumes `printcloud.domain-events` and `printcloud.job-events`: hands each well-formed event to
the use case it calls for (the owners of an organization, or a public event for the feed and the
endpoints)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from printcloud.core.ids import parse_uuid
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import MODES, Scope
from printcloud.webhooks.domain.event_types import is_public
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.use_cases.feed import Feed
from printcloud.webhooks.use_cases.organizations import Organizations

log = logging.getLogger(__name__)

# Any `organization.*` event whose data carries `ownerEmails` replaces the owners we e-mail.
ORGANIZATION_EVENT_PREFIX = "organization."
OWNER_EMAILS_FIELD = "ownerEmails"
# A deleted organization's endpoints go, and with them every delivery not yet sent.
ORGANIZATION_DELETED = "organization.deleted"


class DomainEventsHandler:
    """A `printcloud.core.kafka.bus.Consumer` handler, one message or a batch; the use cases make it
    idempotent by message id."""

    def __init__(self, feed: Feed, organizations: Organizations) -> None:
        self.feed = feed
        self.organizations = organizations

    @staticmethod
    def wants(message_type: str) -> bool:
        """The events read at all: the organizations' and the public ones; the rest are passed over
        undecoded."""
        return message_type.startswith(ORGANIZATION_EVENT_PREFIX) or is_public(message_type)

    async def __call__(self, message: Message) -> None:
        await self.handle_batch([message])

    async def handle_batch(self, messages: Sequence[Message]) -> None:
        """Owner changes each in a transaction of its own (rare); the public events together."""
        public: list[PublicEvent] = []
        for message in messages:
            message_id = parse_uuid(message.id)
            organization_id = parse_uuid(message.organization_id)
            if message_id is None or organization_id is None or message.mode not in MODES:
                # The consumer retries a failing handler forever; a malformed event would never pass.
                log.error("domain event without valid ids or mode skipped", extra={"message_id": message.id})
                continue
            if message.type == ORGANIZATION_DELETED:
                await self.organizations.forget(message_id, organization_id)
            elif message.type.startswith(ORGANIZATION_EVENT_PREFIX) and OWNER_EMAILS_FIELD in message.data:
                emails = [str(e) for e in message.data[OWNER_EMAILS_FIELD]]
                await self.organizations.replace_owners(message_id, organization_id, emails)
            elif is_public(message.type):
                scope = Scope(organization_id, message.mode)
                public.append(PublicEvent(message_id, scope, message.type, message.timestamp, message.data))
        if public:
            await self.feed.record_events(public)
