"""A batch of domain events is recorded as the same events one by one would be, in one transaction,
on the real database: each public event once, in order within its scope, with its deliveries."""

from __future__ import annotations

import asyncio
import random
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.endpoints import EndpointChanges
from printcloud.webhooks.persistence import feed
from printcloud.webhooks.persistence.tables import deliveries, organization_owners
from printcloud.webhooks.persistence.tables import endpoints as endpoints_table
from printcloud.webhooks.use_cases.endpoints import Endpoints
from services.webhooks.tests.conftest import LOOPBACK_ONLY, add_endpoint, domain_events_handler, no_worker


def _event(event_type: str, scope: Scope, job: str) -> Message:
    return Message(event_type, str(scope.organization_id), scope.mode, {"id": job})


async def _feed(db: Database, scope: Scope) -> list[tuple[str, str]]:
    async with db.read() as session:
        page = await feed.list_visible(
            session, scope, PageRequest(dir="asc", limit=100), now=utcnow(), visibility_delay=timedelta(0)
        )
    return [(row.type, row.data["id"]) for row in page.items]


async def test_a_batch_records_each_public_event_once_in_order_within_its_scope(db: Database, scope: Scope) -> None:
    other = Scope(uuid7(), "test")
    endpoint = await add_endpoint(db, scope, "http://127.0.0.1:9/hook", ["printjob.queued", "printjob.done"])
    queued_a, queued_b, done_a = (
        _event("printjob.queued", scope, "a"),
        _event("printjob.queued", other, "b"),
        _event("printjob.done", scope, "a"),
    )
    owners = Message("organization.created", str(scope.organization_id), "test", {"ownerEmails": ["Ann@Example.com"]})
    handler = domain_events_handler(db)

    # queued_a twice in one batch (a relay may send a message twice), then the whole batch read again.
    await handler.handle_batch([queued_a, queued_b, owners, done_a, queued_a])
    await handler.handle_batch([queued_a, queued_b, owners, done_a])

    assert await _feed(db, scope) == [("printjob.queued", "a"), ("printjob.done", "a")]
    assert await _feed(db, other) == [("printjob.queued", "b")]
    async with db.read() as session:
        sent = (await session.execute(
            select(deliveries.c.event_type).where(deliveries.c.endpoint_id == endpoint.id).order_by(deliveries.c.id)
        )).scalars().all()  # fmt: skip
        emails = (await session.execute(
            select(organization_owners.c.email).where(organization_owners.c.organization_id == scope.organization_id)
        )).scalars().all()  # fmt: skip
    assert list(sent) == ["printjob.queued", "printjob.done"]
    assert list(emails) == ["ann@example.com"]


async def test_a_deleted_organization_loses_its_endpoints_their_deliveries_and_owners(
    db: Database, scope: Scope
) -> None:
    live = Scope(scope.organization_id, "live")
    kept = Scope(uuid7(), "test")
    endpoints = [await add_endpoint(db, s, "http://127.0.0.1:9/hook", ["printjob.done"]) for s in (scope, live, kept)]
    handler = domain_events_handler(db)
    owners = Message("organization.created", str(scope.organization_id), "test", {"ownerEmails": ["ann@example.com"]})
    await handler.handle_batch([owners, _event("printjob.done", scope, "a"), _event("printjob.done", kept, "b")])
    deleted = Message(
        "organization.deleted",
        str(scope.organization_id),
        "test",
        {"id": str(scope.organization_id), "ownerEmails": []},
    )
    await handler.handle_batch([deleted, deleted])
    async with db.read() as session:
        left = (await session.execute(
            select(deliveries.c.endpoint_id).where(deliveries.c.endpoint_id.in_([e.id for e in endpoints]))
        )).scalars().all()  # fmt: skip
        emails = (await session.execute(
            select(organization_owners.c.email).where(organization_owners.c.organization_id == scope.organization_id)
        )).scalars().all()  # fmt: skip
        remaining = (await session.execute(
            select(endpoints_table.c.id).where(endpoints_table.c.id.in_([e.id for e in endpoints]))
        )).scalars().all()  # fmt: skip
    assert list(left) == [endpoints[2].id], "only the other organization's delivery is left"
    assert list(remaining) == [endpoints[2].id]
    assert list(emails) == []


async def test_a_batch_queues_deliveries_only_to_subscribed_enabled_endpoints_of_each_events_scope(
    db: Database, scope: Scope
) -> None:
    live = Scope(scope.organization_id, "live")
    both = await add_endpoint(db, scope, "http://127.0.0.1:9/both", ["printjob.queued", "printjob.done"])
    done_only = await add_endpoint(db, scope, "http://127.0.0.1:9/done", ["printjob.done"])
    of_live = await add_endpoint(db, live, "https://127.0.0.1:9/live", ["printjob.queued", "printjob.done"])
    switched_off = await add_endpoint(db, scope, "http://127.0.0.1:9/off", ["printjob.queued", "printjob.done"])
    await endpoints_use_case(db).update(scope, switched_off.id, EndpointChanges(enabled=False))
    before = utcnow()

    await domain_events_handler(db).handle_batch(
        [_event("printjob.queued", scope, "a"), _event("printjob.done", live, "b"), _event("printjob.done", scope, "a")]
    )

    async with db.read() as session:
        rows = (await session.execute(
            select(deliveries.c.id, deliveries.c.endpoint_id, deliveries.c.event_type, deliveries.c.status,
                   deliveries.c.attempt, deliveries.c.next_attempt_at, deliveries.c.payload)
            .where(deliveries.c.organization_id == scope.organization_id)
        )).all()  # fmt: skip
    assert sorted((row.endpoint_id, row.event_type) for row in rows) == sorted([
        (both.id, "printjob.queued"), (both.id, "printjob.done"), (done_only.id, "printjob.done"),
        (of_live.id, "printjob.done"),
    ])  # fmt: skip
    assert all(row.status == "pending" and row.attempt == 0 and row.next_attempt_at >= before for row in rows)
    # Delivery ids are UUIDv7s of their own, later for a later event of the batch.
    assert len({row.id for row in rows}) == len(rows)
    assert all(row.id.version == 7 and row.id.variant == uuid.RFC_4122 for row in rows)
    by_type = {(row.endpoint_id, row.event_type): row.id for row in rows}
    assert by_type[(both.id, "printjob.queued")] < by_type[(both.id, "printjob.done")]
    # The payload is the envelope of the feed event.
    listed = {row.type: row for row in await _feed_rows(db, scope)}
    queued = next(row for row in rows if row.event_type == "printjob.queued")
    assert queued.payload["id"] == str(listed["printjob.queued"].id) and queued.payload["mode"] == "test"
    assert queued.payload["data"] == {"id": "a"}


async def test_batches_over_the_same_scopes_in_any_order_all_commit_in_id_order(db: Database, scope: Scope) -> None:
    others = [Scope(uuid7(), "test") for _ in range(3)]
    handler = domain_events_handler(db)
    rng = random.Random(7)

    async def batch(number: int) -> None:
        scopes = [scope, *others]
        rng.shuffle(scopes)
        await handler.handle_batch([_event("printjob.done", s, f"{number}") for s in scopes])

    await asyncio.gather(*(batch(n) for n in range(12)))
    for each in (scope, *others):
        rows = await _feed_rows(db, each)
        assert sorted(row.data["id"] for row in rows) == sorted(str(n) for n in range(12))
        assert [row.id for row in rows] == sorted(row.id for row in rows)


def endpoints_use_case(db: Database) -> Endpoints:
    return Endpoints(db, LOOPBACK_ONLY, on_new_delivery=no_worker)


async def _feed_rows(db: Database, scope: Scope) -> list[Any]:
    async with db.read() as session:
        page = await feed.list_visible(
            session, scope, PageRequest(dir="asc", limit=100), now=utcnow(), visibility_delay=timedelta(0)
        )
    return list(page.items)
