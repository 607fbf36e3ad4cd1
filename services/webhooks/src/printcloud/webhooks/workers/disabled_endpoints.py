"""What happens when an endpoint is disabled automatically: every owner is told by e-mail."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.webhooks.domain.endpoints import AUTO_DISABLED_REASON
from printcloud.webhooks.persistence import mail
from printcloud.webhooks.persistence.deliveries import DisabledEndpoint

SUBJECT = "PrintCloud: a webhook endpoint was disabled"


def message_body(endpoint: DisabledEndpoint) -> str:
    return (
        f"Your webhook endpoint {endpoint.id} ({endpoint.url}) was disabled.\n\n"
        f"Reason: {AUTO_DISABLED_REASON}.\n\n"
        "Events produced while it is disabled are not sent to it. Once the receiver answers again,\n"
        f're-enable it with PATCH /v1/webhooks/{endpoint.id} and {{"enabled": true}}.\n'
    )


async def notify_owners(session: AsyncSession, endpoint: DisabledEndpoint, now: datetime) -> int:
    """Queues the e-mails in the transaction that disabled the endpoint, so none is lost."""
    return await mail.queue_to_owners(session, endpoint.organization_id, SUBJECT, message_body(endpoint), now)
