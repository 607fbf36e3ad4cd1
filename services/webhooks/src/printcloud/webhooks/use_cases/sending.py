"""What the delivery worker asks of the database: due deliveries to send, the attempts made, and
the backlog it reports.

A claim is one statement that leases the deliveries it returns; the attempts are recorded together
in one transaction with what they lead to, an endpoint disabled and its owners' e-mails queued.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence import deliveries
from printcloud.webhooks.persistence.deliveries import Attempt, Backlog, Claim, DisabledEndpoint
from printcloud.webhooks.use_cases.owner_mail import queue_endpoint_disabled


async def claim_due(
    db: Database,
    *,
    limit: int,
    per_endpoint: int,
    in_flight: Mapping[uuid.UUID, int],
    failing_limit: int,
    lease: timedelta,
) -> list[Claim]:
    async with db.one_statement() as session:
        return await deliveries.claim_due(
            session,
            now=utcnow(),
            limit=limit,
            per_endpoint=per_endpoint,
            in_flight=in_flight,
            failing_limit=failing_limit,
            lease=lease,
        )


async def record_attempts(
    db: Database, attempts: Sequence[Attempt], *, auto_disable_after: timedelta
) -> list[DisabledEndpoint]:
    """The endpoints the attempts disabled; their owners' e-mails are queued in the same
    transaction, so none is lost."""
    async with db.transaction() as session:
        disabled = await deliveries.record_attempts(session, attempts, auto_disable_after=auto_disable_after)
        for endpoint in disabled:
            await queue_endpoint_disabled(session, endpoint, attempts[-1].ended_at)
    return disabled


async def backlog(db: Database) -> Backlog:
    async with db.read() as session:
        return await deliveries.backlog(session, utcnow())
