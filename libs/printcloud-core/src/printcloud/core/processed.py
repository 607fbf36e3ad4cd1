"""The consumers' ledger of handled message ids, beside the outbox in every schema that consumes.

`printcloud.core.sql` creates the table; a consumer marks a message in the transaction of the
message's effects, so a redelivered message is recognised and changes nothing.
"""

from __future__ import annotations

import uuid

from sqlalchemy import Column, DateTime, MetaData, Table, Text
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.timeutil import utcnow


class ProcessedMessages:
    def __init__(self, metadata: MetaData) -> None:
        self.table = Table(
            "processed_messages",
            metadata,
            Column("consumer", Text, primary_key=True),
            Column("message_id", UUID(as_uuid=True), primary_key=True),
            Column("processed_at", DateTime(timezone=True), nullable=False),
        )

    async def mark(self, session: AsyncSession, consumer: str, message_id: uuid.UUID) -> bool:
        """True the first time `consumer` handles the message; False for a redelivery."""
        result = await session.execute(
            pg_insert(self.table)
            .values(consumer=consumer, message_id=message_id, processed_at=utcnow())
            .on_conflict_do_nothing()
            .returning(self.table.c.message_id)
        )
        return result.first() is not None
