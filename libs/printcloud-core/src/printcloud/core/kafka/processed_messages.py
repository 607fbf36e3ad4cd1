"""The consumers' ledger of handled message ids, beside the outbox in every schema that consumes.

`printcloud.core.kafka.sql` creates the table; a consumer marks a message in the transaction of the
message's effects, so a redelivered message is recognised and changes nothing. Ids are kept a
week, well past the 24 hours outboxes keep sent rows: a broker that lost its log is sent all of
those again (`printcloud.core.kafka.broker_epoch`), and each must still be recognised.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import Column, DateTime, MetaData, Table, Text, bindparam, func, select
from sqlalchemy.dialects.postgresql import ARRAY, UUID
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import Database, rows_affected
from printcloud.core.periodic import run_periodically
from printcloud.core.timeutil import utcnow

RETENTION = timedelta(days=7)
PURGE_EVERY_SECONDS = 3600.0


class ProcessedMessages:
    def __init__(self, metadata: MetaData) -> None:
        self.table = Table(
            "processed_messages",
            metadata,
            Column("consumer", Text, primary_key=True),
            Column("message_id", UUID(as_uuid=True), primary_key=True),
            Column("processed_at", DateTime(timezone=True), nullable=False),
        )
        # One statement for any number of ids, so that it is compiled once: a session sends it
        # alone (`mark_all`), a statement of the driver's embeds it in its WITH clause. Its values
        # are `consumer`, `message_ids` (without repeats) and `processed_at`; it returns the new ids.
        self.marking = (
            pg_insert(self.table)
            .from_select(
                ["consumer", "message_id", "processed_at"],
                select(
                    bindparam("consumer", type_=Text),
                    func.unnest(bindparam("message_ids", type_=ARRAY(UUID(as_uuid=True)))),
                    bindparam("processed_at", type_=DateTime(timezone=True)),
                ),
            )
            .on_conflict_do_nothing()
            .returning(self.table.c.message_id)
        )

    async def mark(self, session: AsyncSession, consumer: str, message_id: uuid.UUID) -> bool:
        """True the first time `consumer` handles the message; False for a redelivery."""
        return bool(await self.mark_all(session, consumer, [message_id]))

    async def mark_all(self, session: AsyncSession, consumer: str, message_ids: Sequence[uuid.UUID]) -> set[uuid.UUID]:
        """The ids among `message_ids` that `consumer` handles for the first time, in one statement."""
        if not message_ids:
            return set()
        values = {"consumer": consumer, "message_ids": list(set(message_ids)), "processed_at": utcnow()}
        return set((await session.execute(self.marking, values)).scalars())

    async def purge(self, db: Database, *, older_than: timedelta = RETENTION) -> int:
        """Every replica may purge: the deletes are idempotent."""
        async with db.transaction() as session:
            return await rows_affected(
                session, self.table.delete().where(self.table.c.processed_at < utcnow() - older_than)
            )

    async def run_purge(self, db: Database) -> None:
        await run_periodically(lambda: self.purge(db), PURGE_EVERY_SECONDS, "purge of handled message ids")
