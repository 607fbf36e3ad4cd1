"""A batch of public domain events recorded in three statements sent by the driver, whatever its
size: its message ids marked as handled (with the feed locks of the scopes of the new ones), the
last feed id of those scopes, then its feed events and their deliveries together."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import BigInteger, DateTime, Text, bindparam, func, select
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.webhooks.domain.envelope import envelope
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.persistence import deliveries, feed
from printcloud.webhooks.persistence.tables import processed_messages

_UUIDS = ARRAY(UUID(as_uuid=True))
_TEXTS = ARRAY(Text)


def _marking_and_locking() -> CompiledRead:
    batch = (
        func.unnest(
            bindparam("message_ids", type_=_UUIDS),
            bindparam("organization_ids", type_=_UUIDS),
            bindparam("modes", type_=_TEXTS),
            bindparam("lock_keys", type_=ARRAY(BigInteger)),
        )
        .table_valued("message_id", "organization_id", "mode", "lock_key")
        .render_derived(with_types=False)
        .alias("batch")
    )
    marked = processed_messages.marking.cte("marked")
    fresh_scopes = (
        select(batch.c.organization_id, batch.c.mode, batch.c.lock_key)
        .distinct()
        .join_from(batch, marked, marked.c.message_id == batch.c.message_id)
        .cte("fresh_scopes")
    )
    # PostgreSQL calls a volatile function of the select list after the sort, in the sort's order.
    locked = (
        select(func.pg_advisory_xact_lock(fresh_scopes.c.lock_key).label("locked"))
        .order_by(fresh_scopes.c.organization_id, fresh_scopes.c.mode)
        .cte("locked")
    )
    # An uncorrelated subquery runs once, before the first row of `marked` is returned: every lock
    # is held when the statement ends.
    return CompiledRead.of(
        select(marked.c.message_id, select(func.count()).select_from(locked).scalar_subquery().label("locks"))
    )


def _recording() -> CompiledRead:
    new_events = (
        select(
            func.unnest(
                bindparam("ids", type_=_UUIDS),
                bindparam("organization_ids", type_=_UUIDS),
                bindparam("modes", type_=_TEXTS),
                bindparam("types", type_=_TEXTS),
                bindparam("occurred_at", type_=ARRAY(DateTime(timezone=True))),
                bindparam("data", type_=ARRAY(JSONB)),
                bindparam("payloads", type_=ARRAY(JSONB)),
                bindparam("delivery_ids_from", type_=_UUIDS),
            )
            .table_valued(
                "id", "organization_id", "mode", "type", "occurred_at", "data", "payload", "delivery_ids_from"
            )
            .render_derived(with_types=False)
        )
    ).cte("new_events")
    appended = feed.appending(new_events).cte("appended")
    queued = deliveries.enqueuing(new_events).cte("queued")
    return CompiledRead.of(select(func.count().label("queued")).select_from(queued).add_cte(appended))


# Ids of new messages, with the feed locks of their scopes taken in one order, so that batches of
# two replicas never wait for each other in a circle.
_MARK_AND_LOCK = _marking_and_locking()
_RECORD = _recording()


@dataclass(frozen=True)
class Recorded:
    event_ids: list[uuid.UUID]  # the feed ids of the events recorded, in their order
    deliveries: int  # how many deliveries were queued for them


async def record(tx: DriverTransaction, consumer: str, events: Sequence[PublicEvent], now: datetime) -> Recorded:
    """Records each event of a message `consumer` had not handled yet as a feed event and one
    delivery per subscribed endpoint that was enabled when it happened; `events` has one event per
    message. The feed locks are held until `tx` ends."""
    if not events:
        return Recorded([], 0)
    scopes = [event.scope for event in events]
    marked = await tx.fetch(
        _MARK_AND_LOCK,
        consumer=consumer,
        processed_at=now,
        message_ids=[event.message_id for event in events],
        organization_ids=[scope.organization_id for scope in scopes],
        modes=[scope.mode for scope in scopes],
        lock_keys=[feed.lock_key(scope) for scope in scopes],
    )
    new_ids = {row.message_id for row in marked}
    fresh = [event for event in events if event.message_id in new_ids]
    if not fresh:
        return Recorded([], 0)
    by_scope: dict[Scope, list[int]] = {}
    for place, event in enumerate(fresh):
        by_scope.setdefault(event.scope, []).append(place)
    last = await feed.last_ids(tx, list(by_scope))
    ids: list[uuid.UUID] = [uuid.UUID(int=0)] * len(fresh)
    for scope, places in by_scope.items():
        for place, event_id in zip(places, feed.next_ids(last[scope], len(places)), strict=True):
            ids[place] = event_id
    [row] = await tx.fetch(
        _RECORD,
        ids=ids,
        organization_ids=[event.scope.organization_id for event in fresh],
        modes=[event.scope.mode for event in fresh],
        types=[event.type for event in fresh],
        occurred_at=[event.occurred_at(now) for event in fresh],
        # Encoded as the columns' type says (the compiled statement's processors).
        data=[event.data for event in fresh],
        payloads=[
            envelope(event_id, event.type, event.timestamp, event.scope.mode, event.data)
            for event_id, event in zip(ids, fresh, strict=True)
        ],
        delivery_ids_from=[uuid7() for _ in fresh],
        recorded_at=now,
        now=now,
        **deliveries.NEW_DELIVERY_VALUES,
    )
    return Recorded(ids, row.queued)
