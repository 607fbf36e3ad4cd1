"""Deliveries: the durable send schedule and the delivery log, in one table.

Workers claim due rows with `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`) instead of
holding a transaction open during the HTTP exchange: several replicas never send the same attempt,
and a delivery claimed by a process that died becomes due again when its lease runs out.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, and_, bindparam, cast, exists, func, literal_column, or_, select, text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID, array
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle
from sqlalchemy.sql.dml import ReturningInsert
from sqlalchemy.sql.expression import CTE
from sqlalchemy.types import DateTime, Integer, Text

from printcloud.core.db.database import AnyRow, rows_affected
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.webhooks.domain.attempts import PENDING, NextState, Outcome
from printcloud.webhooks.domain.endpoints import AUTO_DISABLED_REASON
from printcloud.webhooks.persistence.endpoints import record_enabled
from printcloud.webhooks.persistence.tables import deliveries, delivery_attempts, endpoint_enabled_periods, endpoints

_delivery: Bundle[Row[Any]] = Bundle("delivery", *deliveries.c)


@dataclass(frozen=True)
class Claim:
    """A delivery this worker may send now, with what sending needs of its endpoint."""

    id: uuid.UUID
    endpoint_id: uuid.UUID
    event_id: uuid.UUID
    payload: dict[str, Any]
    attempt: int
    url: str
    secret: str
    mode: str
    failing: bool  # the endpoint had a failure mark when this was claimed
    created_at: datetime | None = None  # when the event was recorded for this endpoint


@dataclass(frozen=True)
class DisabledEndpoint:
    """An endpoint that recording an attempt has just disabled automatically."""

    id: uuid.UUID
    organization_id: uuid.UUID
    url: str


def enqueuing(new_events: CTE) -> ReturningInsert[tuple[uuid.UUID]]:
    """Inserts one pending delivery of each row of `new_events` (`id`, `organization_id`, `mode`,
    `type`, `occurred_at`, `payload`, `delivery_ids_from`) per endpoint of its scope subscribed to its
    type that was enabled when it happened: one disabled since then gets it once re-enabled, one
    disabled then never does, however late the event is consumed. Due at the `now` value; returns
    the deliveries' ids.

    A delivery's id is the first half of the event's `delivery_ids_from` (a UUIDv7 minted for the
    event: its time and counter) with the random second half of a fresh UUID, as UUIDv7 fills it:
    deliveries sort by when their events were recorded, and the statement needs no id per endpoint
    from its caller, who does not know the endpoints."""
    now = bindparam("now", type_=deliveries.c.created_at.type)
    time_half = func.left(cast(new_events.c.delivery_ids_from, Text), literal_column("19"), type_=Text)
    random_half = func.right(cast(func.gen_random_uuid(), Text), literal_column("17"), type_=Text)
    delivery_id = cast(time_half + random_half, UUID(as_uuid=True))
    enabled_then = exists().where(
        endpoint_enabled_periods.c.endpoint_id == endpoints.c.id,
        endpoint_enabled_periods.c.enabled_from <= new_events.c.occurred_at,
        or_(
            endpoint_enabled_periods.c.enabled_until.is_(None),
            endpoint_enabled_periods.c.enabled_until > new_events.c.occurred_at,
        ),
    )
    targets = select(
        delivery_id,
        endpoints.c.id,
        new_events.c.organization_id,
        new_events.c.mode,
        new_events.c.id,
        new_events.c.type,
        new_events.c.payload,
        bindparam("attempt", type_=Integer),
        bindparam("status", type_=Text),
        now,
        now,
    ).join_from(
        new_events,
        endpoints,
        and_(
            endpoints.c.organization_id == new_events.c.organization_id,
            endpoints.c.mode == new_events.c.mode,
            endpoints.c.events.contains(array([new_events.c.type])),
            enabled_then,
        ),
    )
    columns = ["id", "endpoint_id", "organization_id", "mode", "event_id", "event_type", "payload", "attempt",
               "status", "next_attempt_at", "created_at"]  # fmt: skip
    return deliveries.insert().from_select(columns, targets).returning(deliveries.c.id)


NEW_DELIVERY_VALUES = {"attempt": 0, "status": PENDING}


async def enqueue_one(
    session: AsyncSession,
    endpoint: AnyRow,
    event_id: uuid.UUID,
    event_type: str,
    payload: dict[str, Any],
    now: datetime,
) -> AnyRow:
    scope = Scope(endpoint.organization_id, endpoint.mode)
    row = _new_row(endpoint.id, scope, event_id, event_type, payload, now)
    return (await session.execute(deliveries.insert().values(**row).returning(*deliveries.c))).one()


def _new_row(
    endpoint_id: uuid.UUID, scope: Scope, event_id: uuid.UUID, event_type: str, payload: dict[str, Any], now: datetime
) -> dict[str, Any]:
    return {
        "id": uuid7(), "endpoint_id": endpoint_id, "organization_id": scope.organization_id, "mode": scope.mode,
        "event_id": event_id, "event_type": event_type, "payload": payload, "attempt": 0, "status": PENDING,
        "next_attempt_at": now, "created_at": now,
    }  # fmt: skip


async def get(session: AsyncSession, scope: Scope, delivery_id: uuid.UUID) -> AnyRow | None:
    return (
        await session.execute(
            select(_delivery).where(
                deliveries.c.organization_id == scope.organization_id,
                deliveries.c.mode == scope.mode,
                deliveries.c.id == delivery_id,
            )
        )
    ).scalar()


async def list_in_scope(
    session: AsyncSession, scope: Scope, page: PageRequest, *, endpoint_id: uuid.UUID | None, status: str | None
) -> Page[AnyRow]:
    """The delivery log of one endpoint, or of every endpoint of the scope, optionally of one status."""
    query = select(_delivery).where(
        deliveries.c.organization_id == scope.organization_id, deliveries.c.mode == scope.mode
    )
    if endpoint_id is not None:
        query = query.where(deliveries.c.endpoint_id == endpoint_id)
    if status is not None:
        query = query.where(deliveries.c.status == status)
    return await fetch_page(session, query, deliveries.c.id, page)


async def attempts_of(session: AsyncSession, delivery_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[AnyRow]]:
    """Every attempt of each delivery, in order: the delivery log shows them all."""
    query = (
        select(delivery_attempts)
        .where(delivery_attempts.c.delivery_id.in_(delivery_ids))
        .order_by(delivery_attempts.c.delivery_id, delivery_attempts.c.attempt)
    )
    found: dict[uuid.UUID, list[AnyRow]] = {delivery_id: [] for delivery_id in delivery_ids}
    for row in (await session.execute(query)).all():
        found[row.delivery_id].append(row)
    return found


_CLAIM = text(
    """
    WITH RECURSIVE endpoints_with_work AS (
        -- A skip scan of deliveries_pending_by_endpoint: one probe per endpoint with pending
        -- deliveries, however many it has.
        (SELECT d.endpoint_id FROM webhooks.deliveries d
         WHERE d.status IN ('pending', 'retrying') ORDER BY d.endpoint_id LIMIT 1)
        UNION ALL
        SELECT (SELECT d.endpoint_id FROM webhooks.deliveries d
                WHERE d.status IN ('pending', 'retrying') AND d.endpoint_id > w.endpoint_id
                ORDER BY d.endpoint_id LIMIT 1)
        FROM endpoints_with_work w WHERE w.endpoint_id IS NOT NULL
    ),
    in_flight AS (
        SELECT * FROM unnest(CAST(:busy_ids AS uuid[]), CAST(:busy_counts AS integer[])) AS f(endpoint_id, n)
    ),
    candidates AS (
        SELECT c.id, c.next_attempt_at, e.failing_since IS NOT NULL AS failing
        FROM endpoints_with_work w
        JOIN webhooks.endpoints e ON e.id = w.endpoint_id AND e.enabled
        LEFT JOIN in_flight f ON f.endpoint_id = e.id
        CROSS JOIN LATERAL (
            SELECT d.id, d.next_attempt_at FROM webhooks.deliveries d
            WHERE d.endpoint_id = e.id AND d.status IN ('pending', 'retrying') AND d.next_attempt_at <= :now
              AND (d.locked_until IS NULL OR d.locked_until <= :now)
            ORDER BY d.next_attempt_at, d.id
            LIMIT greatest(:per_endpoint - coalesce(f.n, 0), 0)
        ) c
    ),
    ranked AS (
        SELECT c.*, row_number() OVER (PARTITION BY c.failing ORDER BY c.next_attempt_at, c.id) AS place
        FROM candidates c
    ),
    chosen AS (
        -- "= ANY" again: joined with "ranked" alone, the planner read every due delivery through
        -- deliveries_due to find the few ranked ones, a cost that grew with the backlog.
        SELECT d.id FROM webhooks.deliveries d JOIN ranked c ON c.id = d.id
        WHERE d.id = ANY(ARRAY(SELECT id FROM ranked))
          AND d.status IN ('pending', 'retrying') AND (d.locked_until IS NULL OR d.locked_until <= :now)
          AND (NOT c.failing OR c.place <= :failing_limit)
        ORDER BY c.next_attempt_at
        LIMIT :limit
        FOR UPDATE OF d SKIP LOCKED
    )
    -- "= ANY(ARRAY(...))" makes the planner probe the chosen ids by primary key; a join with
    -- "chosen" let it hash a scan of the whole table for a few hundred rows.
    UPDATE webhooks.deliveries d SET locked_until = :lease_until
    FROM webhooks.endpoints e
    WHERE d.id = ANY(ARRAY(SELECT id FROM chosen)) AND e.id = d.endpoint_id
    RETURNING d.id, d.endpoint_id, d.event_id, d.payload, d.attempt, e.url, e.secret, e.mode,
              e.failing_since IS NOT NULL AS failing, d.created_at
    """
).bindparams(
    bindparam("busy_ids", type_=ARRAY(UUID(as_uuid=True))),
    bindparam("busy_counts", type_=ARRAY(Integer)),
)


async def claim_due(
    session: AsyncSession,
    *,
    now: datetime,
    limit: int,
    per_endpoint: int,
    in_flight: Mapping[uuid.UUID, int],
    failing_limit: int,
    lease: timedelta,
) -> list[Claim]:
    """Claims up to `limit` due deliveries of enabled endpoints, never more than `per_endpoint` in
    flight for one endpoint (counting `in_flight`, this worker's sends under way), so that a slow
    receiver cannot take every sending slot, and at most `failing_limit` of endpoints with a
    failure mark, so that many dead receivers together cannot either."""
    rows = (
        await session.execute(
            _CLAIM,
            {
                "busy_ids": list(in_flight),
                "busy_counts": list(in_flight.values()),
                "now": now,
                "per_endpoint": per_endpoint,
                "limit": limit,
                "failing_limit": failing_limit,
                "lease_until": now + lease,
            },
        )
    ).all()
    return [
        Claim(r.id, r.endpoint_id, r.event_id, r.payload, r.attempt, r.url, r.secret, r.mode, r.failing, r.created_at)
        for r in rows
    ]


@dataclass(frozen=True)
class Backlog:
    pending: int  # waiting for a first or a later attempt, at enabled endpoints
    due: int  # of those, the ones whose attempt time has come
    oldest_due_seconds: float  # how long the most overdue one has waited past its time


async def backlog(session: AsyncSession, now: datetime) -> Backlog:
    """Deliveries of enabled endpoints not yet done, through the partial index on the pending ones.

    Deliveries of disabled endpoints wait on purpose and are left out.
    """
    waiting = deliveries.c.status.in_(("pending", "retrying"))
    due = deliveries.c.next_attempt_at <= now
    row = (
        await session.execute(
            select(
                func.count(),
                func.count().filter(due),
                func.min(deliveries.c.next_attempt_at).filter(due),
            )
            .select_from(deliveries.join(endpoints, endpoints.c.id == deliveries.c.endpoint_id))
            .where(waiting, endpoints.c.enabled)
        )
    ).one()
    pending, due_count, oldest_due = row
    overdue = (now - oldest_due).total_seconds() if oldest_due is not None else 0.0
    return Backlog(pending, due_count, max(overdue, 0.0))


@dataclass(frozen=True)
class Attempt:
    """One finished send of a claimed delivery and the state it leaves the delivery in."""

    claim: Claim
    outcome: Outcome
    state: NextState
    sent_at: datetime
    ended_at: datetime


# One statement for any number of attempts: each delivery's new state, and an attempt row for each
# delivery still there (one whose endpoint was deleted since the claim is gone, and so is its log).
_STORE_ATTEMPTS = text(
    """
    WITH attempt AS (
        SELECT * FROM unnest(
            CAST(:ids AS uuid[]), CAST(:numbers AS integer[]), CAST(:statuses AS text[]),
            CAST(:codes AS integer[]), CAST(:excerpts AS text[]), CAST(:next_at AS timestamptz[]),
            CAST(:sent_at AS timestamptz[]), CAST(:ended_at AS timestamptz[]), CAST(:delivered_at AS timestamptz[]),
            CAST(:headers AS jsonb[])
        ) AS a(id, number, status, code, excerpt, next_at, sent_at, ended_at, delivered_at, headers)
    ),
    stored AS (
        UPDATE webhooks.deliveries d
        SET attempt = a.number, status = a.status, response_code = a.code, response_body_excerpt = a.excerpt,
            next_attempt_at = a.next_at, last_attempt_at = a.ended_at, delivered_at = a.delivered_at,
            locked_until = NULL
        -- "= ANY" keeps this a probe of the primary key: the size of "attempt" is a guess to the
        -- planner, and a join with it alone may hash a scan of the whole table, as the claim's did.
        FROM attempt a WHERE d.id = ANY(CAST(:ids AS uuid[])) AND d.id = a.id
        RETURNING d.id
    )
    INSERT INTO webhooks.delivery_attempts
        (delivery_id, attempt, sent_at, response_code, response_body_excerpt, request_headers)
    SELECT a.id, a.number, a.sent_at, a.code, a.excerpt, a.headers FROM attempt a JOIN stored USING (id)
    -- Sent twice under one claim only if recording outlasted the lease: the first record stands.
    ON CONFLICT DO NOTHING
    """
).bindparams(
    bindparam("ids", type_=ARRAY(UUID(as_uuid=True))),
    bindparam("numbers", type_=ARRAY(Integer)),
    bindparam("statuses", type_=ARRAY(Text)),
    bindparam("codes", type_=ARRAY(Integer)),
    bindparam("excerpts", type_=ARRAY(Text)),
    bindparam("next_at", type_=ARRAY(DateTime(timezone=True))),
    bindparam("sent_at", type_=ARRAY(DateTime(timezone=True))),
    bindparam("ended_at", type_=ARRAY(DateTime(timezone=True))),
    bindparam("delivered_at", type_=ARRAY(DateTime(timezone=True))),
    bindparam("headers", type_=ARRAY(JSONB)),
)


# A text statement: an IN list built by SQLAlchemy is compiled anew for every length of it.
_LOCK_ENDPOINTS = text(
    "SELECT id, failing_since FROM webhooks.endpoints WHERE id = ANY(CAST(:ids AS uuid[])) ORDER BY id FOR KEY SHARE"
).bindparams(bindparam("ids", type_=ARRAY(UUID(as_uuid=True))))


async def record_attempts(
    session: AsyncSession, attempts: Sequence[Attempt], *, auto_disable_after: timedelta
) -> list[DisabledEndpoint]:
    """Stores the attempts and keeps each endpoint's failure mark as its latest answer leaves it: a
    success clears it, a failure sets it if unset, and a failure when the mark is older than
    `auto_disable_after` disables the endpoint. Returns the endpoints disabled.

    The endpoints are locked before the deliveries, the order in which deleting an endpoint (which
    cascades to its deliveries) takes them, so the two never deadlock: first all of them with KEY
    SHARE, which only a delete waits for, then in id order with a write only those whose mark
    changes. Concurrent deliveries to a healthy endpoint never queue on its row, and a success
    there writes no new version of it.
    """
    by_endpoint: dict[uuid.UUID, list[Attempt]] = {}
    for attempt in attempts:
        by_endpoint.setdefault(attempt.claim.endpoint_id, []).append(attempt)
    locked = await session.execute(_LOCK_ENDPOINTS, {"ids": list(by_endpoint)})
    marks: dict[uuid.UUID, datetime | None] = {row.id: row.failing_since for row in locked}
    disabled = []
    for endpoint_id in sorted(marks):
        endpoint_disabled = await _keep_failure_mark(
            session, endpoint_id, marks[endpoint_id], by_endpoint[endpoint_id], auto_disable_after
        )
        if endpoint_disabled is not None:
            disabled.append(endpoint_disabled)
    await session.execute(
        _STORE_ATTEMPTS,
        {
            "ids": [a.claim.id for a in attempts],
            "numbers": [a.claim.attempt + 1 for a in attempts],
            "statuses": [a.state.status for a in attempts],
            "codes": [a.outcome.status_code for a in attempts],
            "excerpts": [a.outcome.excerpt for a in attempts],
            "next_at": [a.state.next_attempt_at for a in attempts],
            "sent_at": [a.sent_at for a in attempts],
            "ended_at": [a.ended_at for a in attempts],
            "delivered_at": [a.state.delivered_at for a in attempts],
            "headers": [dict(a.outcome.request_headers) for a in attempts],
        },
    )
    return disabled


async def _keep_failure_mark(
    session: AsyncSession,
    endpoint_id: uuid.UUID,
    failing_since: datetime | None,
    attempts: list[Attempt],
    auto_disable_after: timedelta,
) -> DisabledEndpoint | None:
    this_endpoint = endpoints.c.id == endpoint_id
    successes = [a.ended_at for a in attempts if a.outcome.succeeded]
    failures = [a.ended_at for a in attempts if not a.outcome.succeeded]
    if successes:
        since_last_success = [ended for ended in failures if ended > max(successes)]
        mark = min(since_last_success, default=None)
        if mark != failing_since:
            await session.execute(endpoints.update().where(this_endpoint).values(failing_since=mark))
        return None
    latest = max(failures)
    marked = (
        await session.execute(
            endpoints.update()
            .where(this_endpoint)
            .values(failing_since=func.coalesce(endpoints.c.failing_since, min(failures)))
            .returning(endpoints.c.organization_id, endpoints.c.url, endpoints.c.enabled, endpoints.c.failing_since)
        )
    ).one()
    if not marked.enabled or marked.failing_since > latest - auto_disable_after:
        return None
    await session.execute(
        endpoints.update()
        .where(this_endpoint)
        .values(enabled=False, disabled_reason=AUTO_DISABLED_REASON, updated_at=latest)
    )
    await record_enabled(session, endpoint_id, False, latest)
    return DisabledEndpoint(endpoint_id, marked.organization_id, marked.url)


async def purge_created_before(session: AsyncSession, cutoff: datetime) -> int:
    return await rows_affected(session, deliveries.delete().where(deliveries.c.created_at < cutoff))
