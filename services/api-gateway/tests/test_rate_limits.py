"""The rate rule's arithmetic with an explicit clock: window edges, Reset, Retry-After, fallback."""

from __future__ import annotations

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from printcloud.api_gateway.domain.rate_limits import RateDecision, SlidingWindowLog, decision
from printcloud.api_gateway.persistence.rate_limiter import RETRY_SECONDS, RateLimiter


def test_the_limit_is_admitted_and_the_next_refused_within_one_second() -> None:
    log = SlidingWindowLog(20)
    decisions = [log.hit("key:a", 100.0 + i * 0.01) for i in range(21)]
    assert all(d.allowed for d in decisions[:20])
    assert [d.remaining for d in decisions[:20]] == list(range(19, -1, -1))
    refused = decisions[20]
    assert not refused.allowed and refused.remaining == 0
    # The oldest (at 100.00) leaves at 101.00; it is 100.20 now.
    assert refused.reset_seconds == pytest.approx(0.8)
    assert refused.headers() == {
        "RateLimit-Limit": "20",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": "1",
        "Retry-After": "1",
    }


def test_a_request_leaves_the_window_exactly_one_second_after_it() -> None:
    log = SlidingWindowLog(2)
    assert log.hit("k", 10.0).allowed
    assert log.hit("k", 10.5).allowed
    assert not log.hit("k", 10.999).allowed
    at_edge = log.hit("k", 11.0)
    assert at_edge.allowed and at_edge.remaining == 0
    # Now 10.5 and 11.0 are in the window: the next place frees at 11.5.
    refused = log.hit("k", 11.2)
    assert not refused.allowed and refused.reset_seconds == pytest.approx(0.3)


def test_refused_requests_do_not_extend_the_wait() -> None:
    log = SlidingWindowLog(1)
    assert log.hit("k", 0.0).allowed
    for step in range(1, 10):
        assert not log.hit("k", step / 10).allowed
    assert log.hit("k", 1.0).allowed


def test_no_more_than_the_limit_in_any_second_across_a_boundary() -> None:
    """Fixed one-second buckets would admit 2x the limit around a bucket edge; the sliding log never."""
    log = SlidingWindowLog(20)
    times = [0.9 + i * 0.005 for i in range(200)]  # one second of a request every 5 ms, across 1.0
    admitted = [t for t in times if log.hit("k", t).allowed]
    for start in admitted:
        assert sum(1 for t in admitted if start <= t < start + 1.0) <= 20


def test_principals_are_independent() -> None:
    log = SlidingWindowLog(1)
    assert log.hit("key:a", 0.0).allowed
    assert not log.hit("key:a", 0.1).allowed
    assert log.hit("key:b", 0.1).allowed
    assert log.hit("ip:127.0.0.1", 0.1).allowed


def test_idle_principals_are_forgotten() -> None:
    log = SlidingWindowLog(5)
    for n in range(100):
        log.hit(f"ip:10.0.0.{n}", 0.0)
    log.hit("key:a", 2.0)
    assert len(log) == 1


@pytest.mark.parametrize(
    ("reset", "header", "retry_after"),
    [(0.0, "0", 1), (0.001, "1", 1), (0.5, "1", 1), (1.0, "1", 1), (1.0000000002, "1", 1), (2.4, "3", 3)],
)
def test_reset_and_retry_after_are_whole_seconds_rounded_up(reset: float, header: str, retry_after: int) -> None:
    decided = RateDecision(allowed=False, limit=20, remaining=0, reset_seconds=reset)
    assert decided.headers()["RateLimit-Reset"] == header
    assert decided.headers()["Retry-After"] == str(retry_after)


def test_admitted_requests_carry_no_retry_after() -> None:
    assert "Retry-After" not in decision(20, True, 3, 5.0, 5.2).headers()


class FlakyStore:
    def __init__(self) -> None:
        self.up = True
        self.calls = 0

    async def hit(self, principal: str) -> RateDecision:
        self.calls += 1
        if not self.up:
            raise RedisConnectionError("connection refused")
        return decision(20, True, 1, 0.0, 0.0)

    async def close(self) -> None:
        pass


async def test_an_unreachable_store_falls_back_to_the_replicas_own_limit_then_recovers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    store = FlakyStore()
    limiter = RateLimiter(2, store, clock=lambda: now[0])
    assert (await limiter.hit("key:a")).remaining == 19  # the store's answer
    store.up = False
    first, second, third = [await limiter.hit("key:a") for _ in range(3)]
    assert (first.allowed, second.allowed, third.allowed) == (True, True, False)
    assert store.calls == 2  # after a failure the store is left alone for RETRY_SECONDS
    assert sum("unreachable" in r.message for r in caplog.records) == 1
    store.up = True
    now[0] += RETRY_SECONDS
    assert (await limiter.hit("key:a")).remaining == 19
    assert any("answers again" in r.message for r in caplog.records)
