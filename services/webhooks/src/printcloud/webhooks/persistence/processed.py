"""The consumer's ledger of handled message ids, written in the transaction of their effects."""

from __future__ import annotations

import uuid

from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence.tables import processed_messages


async def mark_processed(session: AsyncSession, consumer: str, message_id: uuid.UUID) -> bool:
    """True the first time; False when the message was already handled (a redelivery)."""
    result = await session.execute(
        pg_insert(processed_messages)
        .values(consumer=consumer, message_id=message_id, processed_at=utcnow())
        .on_conflict_do_nothing()
        .returning(processed_messages.c.message_id)
    )
    return result.first() is not None
