"""The feed's promise: a client polling with `after` at the last id it processed sees every event
exactly once, in id order, even when writers commit out of the order they started in."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import timedelta
from typing import Any

from printcloud.core.db.database import Database
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.db.paging import PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.persistence import feed, public_events

WRITERS = 8
EVENTS_PER_WRITER = 40
NO_DELAY = timedelta(0)


async def _append(tx: DriverTransaction, scope: Scope, event_type: str, data: dict[str, Any]) -> uuid.UUID:
    event = PublicEvent(uuid7(), scope, event_type, isoformat(utcnow()), data)
    [event_id] = (await public_events.record(tx, "feed-test", [event], utcnow())).event_ids
    return event_id


async def test_a_poller_following_after_sees_every_event_once_in_id_order(db: Database, scope: Scope) -> None:
    written: set[str] = set()
    writers_done = asyncio.Event()

    async def writer(number: int) -> None:
        rng = random.Random(number)
        for i in range(EVENTS_PER_WRITER):
            async with db.driver_transaction() as tx:
                event_id = await _append(tx, scope, "printjob.done", {"writer": number, "i": i})
                # Stay in the transaction a while, so that commits interleave with other writers'
                # attempts and with the poller's reads.
                await asyncio.sleep(rng.uniform(0, 0.01))
            written.add(str(event_id))

    async def poller() -> list[str]:
        seen: list[str] = []
        after = None
        while True:
            finished = writers_done.is_set()
            async with db.read() as session:
                page = await feed.list_visible(
                    session,
                    scope,
                    PageRequest(limit=7, after=after, dir="asc"),
                    now=utcnow(),
                    visibility_delay=NO_DELAY,
                )
            seen.extend(str(row.id) for row in page.items)
            after = uuid_or_none(page.next_cursor)
            if finished and not page.items:
                return seen
            if not page.has_more:
                await asyncio.sleep(0.001)

    polling = asyncio.create_task(poller())
    await asyncio.gather(*(writer(n) for n in range(WRITERS)))
    writers_done.set()
    seen = await polling
    assert len(seen) == len(set(seen)) == WRITERS * EVENTS_PER_WRITER
    assert set(seen) == written
    assert seen == sorted(seen, key=lambda value: uuid.UUID(value).int)


def uuid_or_none(value: str | None) -> uuid.UUID | None:
    return uuid.UUID(value) if value else None


async def test_events_show_only_after_the_visibility_delay_and_only_in_their_scope(db: Database, scope: Scope) -> None:
    other = Scope(scope.organization_id, "live")
    async with db.driver_transaction() as tx:
        event_id = await _append(tx, scope, "printjob.queued", {"id": "j"})
        await _append(tx, other, "printjob.queued", {"id": "k"})
    delay = timedelta(seconds=2)
    async with db.read() as session:
        hidden = await feed.list_visible(session, scope, PageRequest(dir="asc"), now=utcnow(), visibility_delay=delay)
        later = await feed.list_visible(
            session, scope, PageRequest(dir="asc"), now=utcnow() + delay, visibility_delay=delay
        )
        unknown = await feed.list_visible(
            session, Scope(uuid7(), "test"), PageRequest(), now=utcnow() + delay, visibility_delay=delay
        )
    assert hidden.items == [] and hidden.next_cursor is None
    assert [row.id for row in later.items] == [event_id]
    assert unknown.items == []
