"""The e-mails to an organization's owners: queued when an endpoint is disabled automatically, and
sent from the queue with growing waits after a failure."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.endpoints import AUTO_DISABLED_REASON
from printcloud.webhooks.persistence import mail
from printcloud.webhooks.persistence.deliveries import DisabledEndpoint
from printcloud.webhooks.persistence.mail import Mail

ENDPOINT_DISABLED_SUBJECT = "PrintCloud: a webhook endpoint was disabled"
BATCH = 20
MAX_RETRY_WAIT = timedelta(hours=1)

Send = Callable[[Mail], Awaitable[str | None]]
"""Sends one e-mail; answers None once it is sent, or why it was not."""


def endpoint_disabled_body(endpoint: DisabledEndpoint) -> str:
    return (
        f"Your webhook endpoint {endpoint.id} ({endpoint.url}) was disabled.\n\n"
        f"Reason: {AUTO_DISABLED_REASON}.\n\n"
        "Events produced while it is disabled are not sent to it. Once the receiver answers again,\n"
        f're-enable it with PATCH /v1/webhooks/{endpoint.id} and {{"enabled": true}}.\n'
    )


async def queue_endpoint_disabled(session: AsyncSession, endpoint: DisabledEndpoint, now: datetime) -> int:
    """Queues the e-mails in the caller's transaction, the one that disabled the endpoint."""
    return await mail.queue_to_owners(
        session, endpoint.organization_id, ENDPOINT_DISABLED_SUBJECT, endpoint_disabled_body(endpoint), now
    )


def retry_wait(attempts: int) -> timedelta:
    return min(timedelta(seconds=10 * 2**attempts), MAX_RETRY_WAIT)


async def next_due(db: Database) -> datetime | None:
    async with db.read() as session:
        return await mail.next_due(session)


async def send_due(db: Database, send: Send) -> int:
    """One pass over the due e-mails; the rows stay locked while they are sent, so replicas never
    send one twice."""
    async with db.transaction() as session:
        due = await mail.claim_due(session, utcnow(), BATCH)
        for item in due:
            if await send(item) is None:
                await mail.mark_sent(session, item.id, utcnow())
            else:
                await mail.mark_failed(session, item, utcnow(), retry_wait(item.attempts))
    return len(due)
