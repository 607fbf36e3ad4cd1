"""Attempts recorded together, in one transaction, on the real database: each delivery's state and
log, and each endpoint's failure mark as its latest answer leaves it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.attempts import Outcome, after_attempt
from printcloud.webhooks.persistence import deliveries, endpoints
from printcloud.webhooks.persistence.deliveries import Attempt, Claim
from printcloud.webhooks.persistence.tables import endpoints as endpoints_table
from services.webhooks.tests.conftest import add_endpoint


@pytest.fixture(autouse=True)
async def _leave_nothing_due(db: Database, scope: Scope) -> AsyncIterator[None]:
    """Failed attempts leave retries due seconds later; the backlog's tests on the shared database
    count every due delivery, so each test here takes its endpoints (and their deliveries) away."""
    yield
    async with db.transaction() as session:
        await session.execute(
            endpoints_table.delete().where(endpoints_table.c.organization_id == scope.organization_id)
        )


OK = Outcome.answered(200, b"ok")
DOWN = Outcome.answered(503, b"down")
FIVE_DAYS = timedelta(days=5)


async def _claim_all(db: Database, *endpoints_of_test: Any) -> list[Claim]:
    """The test's deliveries; others left pending on the shared database by earlier tests are
    claimed too, for a second only, and left alone."""
    async with db.transaction() as session:
        claims = await deliveries.claim_due(
            session, now=utcnow(), limit=1000, per_endpoint=100, in_flight={}, failing_limit=1000,
            lease=timedelta(seconds=1),
        )  # fmt: skip
    ours = {endpoint.id for endpoint in endpoints_of_test}
    return sorted((claim for claim in claims if claim.endpoint_id in ours), key=lambda claim: claim.id)


def _ended(claim: Claim, outcome: Outcome, seconds_from_now: float) -> Attempt:
    ended = utcnow() + timedelta(seconds=seconds_from_now)
    return Attempt(claim, outcome, after_attempt(claim.attempt + 1, outcome, ended, retry_scale=1.0),
                   sent_at=ended - timedelta(milliseconds=5), ended_at=ended)  # fmt: skip


async def _record(db: Database, attempts: list[Attempt]) -> list[Any]:
    async with db.transaction() as session:
        return await deliveries.record_attempts(session, attempts, auto_disable_after=FIVE_DAYS)


async def _mark(db: Database, endpoint_id: Any) -> Any:
    async with db.read() as session:
        query = select(endpoints_table.c.failing_since).where(endpoints_table.c.id == endpoint_id)
        return (await session.execute(query)).scalar_one()


async def _log(db: Database, claims: list[Claim]) -> dict[Any, list[Any]]:
    async with db.read() as session:
        return await deliveries.attempts_of(session, [claim.id for claim in claims])


async def test_a_group_stores_every_delivery_and_skips_one_whose_endpoint_was_deleted(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    kept = await add_endpoint(db, scope, "http://127.0.0.1:9/kept")
    doomed = await add_endpoint(db, scope, "http://127.0.0.1:9/doomed")
    for _ in range(3):
        await publish(scope)
    claims = await _claim_all(db, kept, doomed)
    assert len(claims) == 6
    async with db.transaction() as session:
        assert await endpoints.delete(session, scope, doomed.id)

    await _record(db, [_ended(claim, OK if n % 2 else DOWN, 0) for n, claim in enumerate(claims)])

    log = await _log(db, claims)
    for n, claim in enumerate(claims):
        if claim.endpoint_id == doomed.id:
            assert log[claim.id] == []  # gone with its endpoint, and the others stored all the same
            continue
        [attempt] = log[claim.id]
        assert (attempt.attempt, attempt.response_code) == (1, 200 if n % 2 else 503)
        async with db.read() as session:
            row = await deliveries.get(session, scope, claim.id)
        assert row is not None
        assert (row.status, row.attempt, row.locked_until) == ("succeeded" if n % 2 else "retrying", 1, None)


async def test_the_latest_answer_in_a_group_decides_the_failure_mark(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    endpoint = await add_endpoint(db, scope, "http://127.0.0.1:9/hook")
    for _ in range(4):
        await publish(scope)
    first, second, third, fourth = await _claim_all(db, endpoint)

    failure_then_success = [_ended(first, DOWN, 0), _ended(second, OK, 1)]
    await _record(db, failure_then_success)
    assert await _mark(db, endpoint.id) is None

    success_then_failures = [_ended(third, OK, 2), _ended(fourth, DOWN, 3)]
    await _record(db, success_then_failures)
    assert await _mark(db, endpoint.id) == success_then_failures[1].ended_at


async def test_a_group_of_failures_past_the_period_disables_the_endpoint_once(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    endpoint = await add_endpoint(db, scope, "http://127.0.0.1:9/hook")
    async with db.transaction() as session:
        marked_long_ago = endpoints_table.update().where(endpoints_table.c.id == endpoint.id)
        await session.execute(marked_long_ago.values(failing_since=utcnow() - FIVE_DAYS - timedelta(minutes=1)))
    for _ in range(3):
        await publish(scope)
    claims = await _claim_all(db, endpoint)

    disabled = await _record(db, [_ended(claim, DOWN, 0) for claim in claims])

    assert [endpoint_disabled.id for endpoint_disabled in disabled] == [endpoint.id]
    async with db.read() as session:
        query = select(endpoints_table.c.enabled, endpoints_table.c.disabled_reason)
        enabled, reason = (await session.execute(query.where(endpoints_table.c.id == endpoint.id))).one()
    assert not enabled and reason
    assert all(len(attempts) == 1 for attempts in (await _log(db, claims)).values())
