"""Consumes `printcloud.domain-events`: each public event becomes a feed event and one delivery per
subscribed enabled endpoint of its organization and mode, in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Callable

from printcloud.core.db import Database
from printcloud.core.ids import parse_uuid
from printcloud.core.messages import Message
from printcloud.core.scope import MODES, Scope
from printcloud.core.timeutil import parse_iso, utcnow
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.domain.event_types import is_public
from printcloud.webhooks.persistence import deliveries, feed, mail
from printcloud.webhooks.persistence.tables import processed_messages

log = logging.getLogger(__name__)

CONSUMER_GROUP = "webhooks"
# Any `organization.*` event whose data carries `ownerEmails` replaces the owners we e-mail.
ORGANIZATION_EVENT_PREFIX = "organization."
OWNER_EMAILS_FIELD = "ownerEmails"


class DomainEventsHandler:
    """A `printcloud.core.bus.Consumer` handler, idempotent by message id."""

    def __init__(self, db: Database, on_new_deliveries: Callable[[], None]) -> None:
        self.db = db
        self.on_new_deliveries = on_new_deliveries

    async def __call__(self, message: Message) -> None:
        message_id = parse_uuid(message.id)
        organization_id = parse_uuid(message.organization_id)
        if message_id is None or organization_id is None or message.mode not in MODES:
            # The consumer retries a failing handler forever; a malformed event would never pass.
            log.error("domain event without valid ids or mode skipped", extra={"message_id": message.id})
            return
        if message.type.startswith(ORGANIZATION_EVENT_PREFIX) and OWNER_EMAILS_FIELD in message.data:
            emails = [str(e).lower() for e in message.data[OWNER_EMAILS_FIELD]]
            async with self.db.transaction() as session:
                if await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                    await mail.replace_owners(session, organization_id, emails)
            return
        if not is_public(message.type):
            return
        scope = Scope(organization_id, message.mode)
        now = utcnow()
        async with self.db.transaction() as session:
            if not await processed_messages.mark(session, CONSUMER_GROUP, message_id):
                return
            occurred_at = parse_iso(message.timestamp) or now
            event_id = await feed.append(session, scope, message.type, occurred_at, message.data, now)
            payload = envelope(event_id, message.type, message.timestamp, message.mode, message.data)
            queued = await deliveries.enqueue_for_event(
                session, scope, event_id, message.type, payload, occurred_at=occurred_at, now=now
            )
        if queued:
            self.on_new_deliveries()
