"""The consumers' ledger against PostgreSQL: a message is handled once, and ids are purged only
after the retention, which outlasts what an outbox may send again."""

from __future__ import annotations

import uuid
from datetime import timedelta

from sqlalchemy import MetaData, func, select, update

from printcloud.core.db.database import Database
from printcloud.core.kafka.outbox import SENT_RETENTION
from printcloud.core.kafka.processed_messages import RETENTION, ProcessedMessages
from printcloud.core.timeutil import utcnow

SCHEMA = "processed_test"


async def test_ids_are_recognised_and_purged_only_after_the_retention(db: Database) -> None:
    ledger = ProcessedMessages(MetaData(schema=SCHEMA))
    old, recent = uuid.uuid4(), uuid.uuid4()
    async with db.transaction() as session:
        assert await ledger.mark(session, "c", old) and await ledger.mark(session, "c", recent)
        assert not await ledger.mark(session, "c", recent), "a redelivery is recognised"
        aged = utcnow() - RETENTION - timedelta(minutes=1)
        await session.execute(update(ledger.table).where(ledger.table.c.message_id == old).values(processed_at=aged))
    assert SENT_RETENTION < RETENTION, "longer than outboxes keep rows they may send again"

    assert await ledger.purge(db) >= 1
    async with db.read() as session:
        left = await session.scalar(
            select(func.count()).where(ledger.table.c.message_id.in_([old, recent])).select_from(ledger.table)
        )
    assert left == 1


async def test_marking_many_ids_returns_only_those_handled_for_the_first_time(db: Database) -> None:
    ledger = ProcessedMessages(MetaData(schema=SCHEMA))
    seen, new = uuid.uuid4(), uuid.uuid4()
    async with db.transaction() as session:
        assert await ledger.mark_all(session, "c", [seen]) == {seen}
        assert await ledger.mark_all(session, "c", [seen, new, new]) == {new}, "a repeat in one call counts once"
        assert await ledger.mark_all(session, "c", []) == set()
        assert await ledger.mark_all(session, "other", [seen]) == {seen}, "each consumer keeps its own ledger"
