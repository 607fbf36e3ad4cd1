"""The delivery worker against a real database and real HTTP receivers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import inspect
import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update
from standardwebhooks import Webhook

from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.retry_schedule import WAITS_SECONDS
from printcloud.webhooks.persistence import deliveries
from printcloud.webhooks.persistence.tables import deliveries as deliveries_table
from printcloud.webhooks.persistence.tables import endpoints as endpoints_table
from printcloud.webhooks.workers import delivery_worker
from services.webhooks.tests.conftest import add_endpoint, running_worker
from tests.support.receiver import Answer, Received, Receiver, always

# Timestamps are kept to the microsecond, so the wait stored is the one chosen, rounded to 1 µs.
ROUNDING = 1e-6
# The receiver and the worker read the same wall clock; this covers its granularity and slewing.
CLOCK_GRANULARITY = 0.001
# The worker polls every 10 ms here, or is woken when a retry is due; a second is generous on a
# loaded machine yet catches an attempt that waits for anything but its time (a lease, a poll).
MAX_LATENESS = 1.0


async def wait_for(check: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if inspect.isawaitable(last):
            last = await last
        if last:
            return last
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


async def delivery_rows(db: Database, endpoint_id: Any) -> list[Any]:
    async with db.read() as session:
        return list(
            (
                await session.execute(
                    deliveries_table.select()
                    .where(deliveries_table.c.endpoint_id == endpoint_id)
                    .order_by(deliveries_table.c.id)
                )
            ).all()
        )


# Either way each retry is attempted when due: polling every 10 ms, or with a poll longer than the
# test, woken by the retries the worker scheduled itself (and by the test for the first attempt).
@pytest.mark.parametrize("poll_interval", [0.01, 600.0], ids=["polling", "woken-when-due"])
async def test_a_failing_receiver_gets_nine_attempts_on_the_scaled_schedule_then_failed(
    db: Database, scope: Scope, publish: Callable[..., Any], poll_interval: float
) -> None:
    # 16 h becomes 5.76 s: the 8 waits add up to 9.6 s, at most 11.5 s with jitter.
    scale = 1e-4
    loop = asyncio.get_running_loop()
    found: list[tuple[Received, Any]] = []  # each attempt with the delivery row as it stood then
    with Receiver() as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())

        def answer(request: Received, _count: int) -> Answer:
            # The worker claims a delivery only once the previous attempt is committed, and waits for
            # this answer: the row read here holds exactly the record of the attempt before this one.
            [row] = asyncio.run_coroutine_threadsafe(delivery_rows(db, endpoint.id), loop).result(timeout=5)
            found.append((request, row))
            return Answer(503, b"down")

        receiver.responder = answer
        async with running_worker(db, retry_scale=scale, poll_interval=poll_interval) as worker:
            await publish(scope)
            worker.wake()
            [row] = await wait_for(
                lambda: _finished(db, endpoint.id), timeout=30, what="the delivery to fail after 9 attempts"
            )
    assert (row.status, row.attempt, row.response_code, row.response_body_excerpt) == ("failed", 9, 503, "down")
    assert row.next_attempt_at is None and row.delivered_at is None
    arrivals = [request.wall for request, _ in found]
    before = [state for _, state in found]
    assert [r.attempt for r in before] == list(range(9))
    assert [r.status for r in before] == ["pending"] + ["retrying"] * 8
    assert row.last_attempt_at.timestamp() >= arrivals[-1] - CLOCK_GRANULARITY
    for n, spec_wait in enumerate(WAITS_SECONDS, start=2):
        state, wait = before[n - 1], spec_wait * scale
        scheduled = (state.next_attempt_at - state.last_attempt_at).total_seconds()
        assert 0.8 * wait - ROUNDING <= scheduled <= 1.2 * wait + ROUNDING, (n, scheduled, wait)
        # The wait counts from the end of attempt n-1, which came after the receiver saw it ...
        assert state.last_attempt_at.timestamp() >= arrivals[n - 2] - CLOCK_GRANULARITY, n
        # ... and attempt n reached the receiver no earlier than scheduled, and not much later.
        lateness = arrivals[n - 1] - state.next_attempt_at.timestamp()
        assert -CLOCK_GRANULARITY <= lateness <= MAX_LATENESS, (n, lateness)
    # Every attempt carries the same webhook-id and a valid signature, under the endpoint's secret.
    ids = {r.headers["webhook-id"] for r in receiver.received()}
    assert ids == {row.payload["id"]}
    for request in receiver.received():
        Webhook(endpoint.secret).verify(request.body, request.headers)


async def test_a_worker_keeps_a_bounded_number_of_retry_wake_ups(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(delivery_worker, "MOST_RETRY_WAKE_UPS", 3)
    async with running_worker(db, poll_interval=600.0) as worker:
        # The furthest first: those past the bound are left to the poll, however near.
        for seconds in (300, 200, 100, 2, 1):
            worker._retry_scheduled(utcnow() + timedelta(seconds=seconds))
        assert len(worker._retries_due) == 3
        assert 99 < worker._until_next_claim() <= 100.1


async def _finished(db: Database, endpoint_id: Any) -> list[Any] | None:
    rows = await delivery_rows(db, endpoint_id)
    return rows if rows and all(r.status in ("succeeded", "failed") for r in rows) else None


async def _failure_mark(db: Database, endpoint_id: Any) -> Any:
    async with db.read() as session:
        query = select(endpoints_table.c.failing_since).where(endpoints_table.c.id == endpoint_id)
        return (await session.execute(query)).scalar_one()


async def test_a_failure_marks_the_endpoint_and_a_success_clears_the_mark(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    marked_seen = threading.Event()

    def fails_then_succeeds(_request: Any, count: int) -> Answer:
        if count == 0:
            return Answer(500)
        marked_seen.wait(timeout=20)  # the retry is answered only once the test has seen the mark
        return Answer(200)

    with Receiver(fails_then_succeeds) as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())
        async with running_worker(db, retry_scale=0.01):
            await publish(scope)
            await wait_for(lambda: _failure_mark(db, endpoint.id), what="the failure mark")
            marked_seen.set()
            [row] = await wait_for(lambda: _finished(db, endpoint.id), what="success after a retry")
    assert row.status == "succeeded"
    assert await _failure_mark(db, endpoint.id) is None


async def test_500_then_200_ends_succeeded_and_retries_are_signed(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    def flaky(_request: Any, count: int) -> Answer:
        return Answer(500, b"oops") if count == 0 else Answer(200, b"thanks")

    with Receiver(flaky) as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())
        async with running_worker(db, retry_scale=0.01):
            message = await publish(scope, data={"id": "job-1", "state": "done"})
            [row] = await wait_for(lambda: _finished(db, endpoint.id), what="success after a retry")
    assert (row.status, row.attempt, row.response_code, row.response_body_excerpt) == ("succeeded", 2, 200, "thanks")
    assert row.delivered_at is not None and row.next_attempt_at is None
    # The delivery log keeps every attempt, not only the last.
    async with db.read() as session:
        [attempts] = (await deliveries.attempts_of(session, [row.id])).values()
    assert [(a.attempt, a.response_code, a.response_body_excerpt) for a in attempts] == [
        (1, 500, "oops"),
        (2, 200, "thanks"),
    ]
    assert attempts[0].sent_at < attempts[1].sent_at <= row.last_attempt_at
    first, second = receiver.received()
    assert first.body == second.body
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == row.payload["id"]
    for request, attempt in zip((first, second), attempts, strict=True):
        Webhook(endpoint.secret).verify(request.body, request.headers)
        # The log keeps each attempt's headers as they were sent, signature included.
        assert {name: request.headers[name] for name in attempt.request_headers} == attempt.request_headers
        assert set(attempt.request_headers) == {
            "webhook-id", "webhook-timestamp", "webhook-signature", "content-type", "user-agent",
        }  # fmt: skip
        assert request.headers["user-agent"] == "PrintCloud-Webhooks/1.0"
        assert request.headers["content-type"] == "application/json"
    sent = json.loads(first.body)
    assert sent == {"id": row.payload["id"], "type": "printjob.done", "timestamp": message.timestamp,
                    "mode": "test", "data": {"id": "job-1", "state": "done"}}  # fmt: skip


async def test_redirects_are_not_followed_and_count_as_failures(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    with Receiver() as target, Receiver(always(Answer(302, b"", {"location": "placeholder"}))) as redirector:
        redirector.responder = always(Answer(302, b"moved", {"location": target.url()}))
        endpoint = await add_endpoint(db, scope, redirector.url())
        async with running_worker(db, retry_scale=1.0):
            await publish(scope)
            [row] = await wait_for(lambda: _attempted(db, endpoint.id), what="one attempt")
    assert (row.status, row.attempt, row.response_code, row.response_body_excerpt) == ("retrying", 1, 302, "moved")
    assert target.received() == []


async def _attempted(db: Database, endpoint_id: Any) -> list[Any] | None:
    rows = await delivery_rows(db, endpoint_id)
    return rows if rows and all(r.attempt >= 1 and r.locked_until is None for r in rows) else None


async def test_an_answer_slower_than_the_timeout_is_a_failure(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    with Receiver(always(Answer(200, b"late", delay=1.5))) as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())
        async with running_worker(db, answer_timeout=0.5):
            await publish(scope)
            [row] = await wait_for(lambda: _attempted(db, endpoint.id), what="one attempt")
    assert (row.status, row.attempt, row.response_code) == ("retrying", 1, None)
    assert "0.5 seconds" in row.response_body_excerpt
    assert len(receiver.received()) == 1


async def test_the_response_excerpt_is_cut_at_2048_characters(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    body = ("ü" * 1500 + "x" * 5000).encode()
    with Receiver(always(Answer(500, body))) as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())
        async with running_worker(db):
            await publish(scope)
            [row] = await wait_for(lambda: _attempted(db, endpoint.id), what="one attempt")
    assert row.response_body_excerpt == "ü" * 1500 + "x" * 548


async def test_a_refused_destination_is_a_failed_attempt_without_a_connection(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    with Receiver() as receiver:
        # Outside the loopback allowlist of the tests: judged private, never connected to.
        url = receiver.url().replace("127.0.0.1", "127.0.0.2")
        endpoint = await add_endpoint(db, scope, url)
        async with running_worker(db):
            await publish(scope)
            [row] = await wait_for(lambda: _attempted(db, endpoint.id), what="one attempt")
    assert row.response_code is None and row.response_body_excerpt.startswith("Not sent:")
    assert receiver.received() == []


async def test_a_slow_receiver_delays_nobody_else(db: Database, scope: Scope, publish: Callable[..., Any]) -> None:
    slow_answer = 5.0
    with Receiver(always(Answer(200, delay=slow_answer))) as slow, Receiver() as fast:
        slow_endpoint = await add_endpoint(db, scope, slow.url(), ["printjob.done"])
        await add_endpoint(db, scope, fast.url(), ["printjob.done"])
        for _ in range(40):
            await publish(scope)
        async with running_worker(db, max_concurrent=8, per_endpoint=4, answer_timeout=10.0):
            started = time.monotonic()
            await wait_for(lambda: len(fast.received()) == 40, timeout=40, what="all fast deliveries")
            fast_done = time.monotonic() - started
            slow_so_far = len(slow.received())
    # 40 slow answers of 5 s, 4 at a time, take 50 s; the fast receiver got all 40 in a fraction of
    # that (it is bound by CPU only), though both endpoints had the same deliveries due at once.
    assert fast_done < 40 * slow_answer / 4 / 2, fast_done
    assert slow_so_far <= 4 * (1 + int(fast_done / slow_answer)), slow_so_far
    async with db.read() as session:
        page = await deliveries.list_in_scope(
            session, scope, PageRequest(limit=100), endpoint_id=slow_endpoint.id, status=None
        )
    assert sum(row.status == "pending" for row in page.items) >= 40 - slow_so_far - 4


class _ConcurrencyMeter:
    """A responder that holds each request `hold` seconds and records the most it held at once."""

    def __init__(self, answer: Answer, hold: float) -> None:
        self.answer, self.hold = answer, hold
        self.most = self._now = 0
        self._lock = threading.Lock()

    def __call__(self, _request: Received, _count: int) -> Answer:
        with self._lock:
            self._now += 1
            self.most = max(self.most, self._now)
        time.sleep(self.hold)
        with self._lock:
            self._now -= 1
        return self.answer


async def test_failing_endpoints_together_never_take_more_than_their_share_of_slots(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    dead = _ConcurrencyMeter(Answer(500, b"down"), hold=0.5)
    with Receiver(dead) as dead_receiver, Receiver() as healthy:
        dead_ids = [(await add_endpoint(db, scope, dead_receiver.url(f"/dead{n}"))).id for n in range(3)]
        await add_endpoint(db, scope, healthy.url())
        async with db.transaction() as session:
            marked = update(endpoints_table).where(endpoints_table.c.id.in_(dead_ids)).values(failing_since=utcnow())
            await session.execute(marked)
        for _ in range(20):
            await publish(scope)
        # Without the share the three dead endpoints could hold 8 sends at once (4 each, 8 in all).
        async with running_worker(db, max_concurrent=8, per_endpoint=4, failing_concurrent=2, retry_scale=0.01):
            await wait_for(lambda: len(healthy.received()) == 20, what="every healthy delivery")
            await wait_for(lambda: len(dead_receiver.received()) >= 12, what="the dead receivers kept busy")
    assert dead.most == 2


async def test_an_endpoints_slot_frees_when_its_send_ends_not_when_the_attempt_is_recorded(
    db: Database, scope: Scope, publish: Callable[..., Any]
) -> None:
    with Receiver() as receiver:
        endpoint = await add_endpoint(db, scope, receiver.url())
        for _ in range(3):
            await publish(scope)
        async with db.transaction() as blocker:
            # Recording locks the endpoint's row (KEY SHARE): held FOR UPDATE here, no attempt can be
            # written, yet the one slot of the endpoint must serve its next delivery meanwhile.
            held = select(endpoints_table.c.id).where(endpoints_table.c.id == endpoint.id).with_for_update()
            await blocker.execute(held)
            async with running_worker(db, per_endpoint=1):
                await wait_for(lambda: len(receiver.received()) == 3, what="every send while none is recorded")
                assert all(row.status == "pending" for row in await delivery_rows(db, endpoint.id))
                await blocker.rollback()
                rows = await wait_for(
                    lambda: _all_succeeded(db, endpoint.id), what="every attempt recorded once the lock went"
                )
    assert [row.attempt for row in rows] == [1, 1, 1]


async def _all_succeeded(db: Database, endpoint_id: Any) -> list[Any] | None:
    rows = await delivery_rows(db, endpoint_id)
    return rows if rows and all(row.status == "succeeded" for row in rows) else None
