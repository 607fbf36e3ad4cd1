"""Deliveries: the durable send schedule and the delivery log, in one table.

Workers claim due rows with `FOR UPDATE SKIP LOCKED` and a lease (`locked_until`) instead of
holding a transaction open during the HTTP exchange: several replicas never send the same attempt,
and a delivery claimed by a process that died becomes due again when its lease runs out.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Row, and_, bindparam, exists, func, or_, select, text
from sqlalchemy.dialects.postgresql import ARRAY, UUID
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle
from sqlalchemy.types import Integer

from printcloud.core.db import AnyRow, rows_affected
from printcloud.core.ids import uuid7
from printcloud.core.paging import Page, PageRequest, fetch_page
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


async def enqueue_for_event(
    session: AsyncSession,
    scope: Scope,
    event_id: uuid.UUID,
    event_type: str,
    payload: dict[str, Any],
    *,
    occurred_at: datetime,
    now: datetime,
) -> int:
    """One pending delivery per endpoint of the scope subscribed to `event_type` that was enabled
    when the event happened: one disabled since then gets it once re-enabled, one disabled then
    never does, however late the event is consumed."""
    query = select(endpoints.c.id).where(
        endpoints.c.organization_id == scope.organization_id,
        endpoints.c.mode == scope.mode,
        endpoints.c.events.contains([event_type]),
        exists().where(
            endpoint_enabled_periods.c.endpoint_id == endpoints.c.id,
            endpoint_enabled_periods.c.enabled_from <= occurred_at,
            or_(
                endpoint_enabled_periods.c.enabled_until.is_(None),
                endpoint_enabled_periods.c.enabled_until > occurred_at,
            ),
        ),
    )
    targets = list((await session.execute(query)).scalars().all())
    if targets:
        await session.execute(
            deliveries.insert(),
            [_new_row(target, scope, event_id, event_type, payload, now) for target in targets],
        )
    return len(targets)


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


async def list_for_endpoint(
    session: AsyncSession, scope: Scope, endpoint_id: uuid.UUID, page: PageRequest
) -> Page[AnyRow]:
    query = select(_delivery).where(
        and_(
            deliveries.c.organization_id == scope.organization_id,
            deliveries.c.mode == scope.mode,
            deliveries.c.endpoint_id == endpoint_id,
        )
    )
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
        SELECT d.id FROM webhooks.deliveries d JOIN ranked c ON c.id = d.id
        WHERE d.status IN ('pending', 'retrying') AND (d.locked_until IS NULL OR d.locked_until <= :now)
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


async def record_attempt(
    session: AsyncSession,
    claim: Claim,
    outcome: Outcome,
    state: NextState,
    *,
    sent_at: datetime,
    now: datetime,
    auto_disable_after: timedelta,
) -> DisabledEndpoint | None:
    """Stores the attempt and keeps the endpoint's failure mark: any success clears it; a failure
    when the mark is older than `auto_disable_after` disables the endpoint, which is returned.

    The endpoint row is locked before the delivery row, the order in which deleting an endpoint
    (which cascades to its deliveries) takes them, so the two never deadlock. A success locks it
    only when there is a mark to clear: concurrent deliveries to a healthy endpoint would otherwise
    queue on its row, and every success would write a new version of it.
    """
    this_endpoint = endpoints.c.id == claim.endpoint_id
    disabled = None
    if outcome.succeeded:
        was_marked = and_(this_endpoint, endpoints.c.failing_since.is_not(None))
        await session.execute(endpoints.update().where(was_marked).values(failing_since=None))
    else:
        marked = (
            await session.execute(
                endpoints.update()
                .where(this_endpoint)
                .values(failing_since=func.coalesce(endpoints.c.failing_since, now))
                .returning(endpoints.c.organization_id, endpoints.c.url, endpoints.c.enabled, endpoints.c.failing_since)
            )
        ).first()
        if marked is not None and marked.enabled and marked.failing_since <= now - auto_disable_after:
            await session.execute(
                endpoints.update()
                .where(this_endpoint)
                .values(enabled=False, disabled_reason=AUTO_DISABLED_REASON, updated_at=now)
            )
            await record_enabled(session, claim.endpoint_id, False, now)
            disabled = DisabledEndpoint(claim.endpoint_id, marked.organization_id, marked.url)
    await session.execute(
        deliveries.update()
        .where(deliveries.c.id == claim.id)
        .values(
            attempt=claim.attempt + 1,
            status=state.status,
            response_code=outcome.status_code,
            response_body_excerpt=outcome.excerpt,
            next_attempt_at=state.next_attempt_at,
            last_attempt_at=now,
            delivered_at=state.delivered_at,
            locked_until=None,
        )
    )
    await session.execute(
        delivery_attempts.insert().values(
            delivery_id=claim.id,
            attempt=claim.attempt + 1,
            sent_at=sent_at,
            response_code=outcome.status_code,
            response_body_excerpt=outcome.excerpt,
        )
    )
    return disabled


async def purge_created_before(session: AsyncSession, cutoff: datetime) -> int:
    return await rows_affected(session, deliveries.delete().where(deliveries.c.created_at < cutoff))
