"""`pytest -m bench -s services/api-gateway/tests/test_rate_limit_bench.py`: what the limiter adds
to one request, in memory and on the machine's Redis (one Lua round trip). With callers one after
another, p50 and p99 are the latency it adds; with ten at a time on one event loop, as a busy
replica has them, each call also waits for the others' turns, so the figure that matters there is
the wall time per request. Prints the figures; asserts only that the limit was applied."""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid

import pytest

from printcloud.api_gateway.domain.rate_limits import DEFAULT_REQUESTS_PER_SECOND
from printcloud.api_gateway.persistence.rate_limiter import RateLimiter
from printcloud.api_gateway.persistence.redis_rate_limits import RedisWindow

REQUESTS = 5000
PRINCIPALS = 500  # many callers, so most requests are admitted as in normal traffic
REDIS_URL = "redis://127.0.0.1:6379/0"


async def _timed_hits(limiter: RateLimiter, concurrency: int) -> tuple[list[float], float]:
    seconds: list[float] = []
    principals = iter(f"key:{n % PRINCIPALS}" for n in range(REQUESTS))

    async def caller() -> None:
        for principal in principals:
            began = time.perf_counter()
            await limiter.hit(principal)
            seconds.append(time.perf_counter() - began)

    began = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return seconds, time.perf_counter() - began


def _report(label: str, timed: tuple[list[float], float]) -> None:
    seconds, wall = timed
    cuts = statistics.quantiles(seconds, n=100)
    print(
        f"\nrate limiter, {label}: p50 {cuts[49] * 1000:.3f} ms, p99 {cuts[98] * 1000:.3f} ms,"
        f" wall time per request {wall / len(seconds) * 1000:.3f} ms, over {len(seconds)} requests"
    )


@pytest.mark.bench
@pytest.mark.parametrize("concurrency", [1, 10])
async def test_limiter_cost_per_request(concurrency: int) -> None:
    local = RateLimiter(DEFAULT_REQUESTS_PER_SECOND)
    _report(f"in process, {concurrency} at a time", await _timed_hits(local, concurrency))

    prefix = f"printcloud-bench:{uuid.uuid4()}:"
    window = RedisWindow.connect(REDIS_URL, DEFAULT_REQUESTS_PER_SECOND, prefix, 1.0)
    shared = RateLimiter(DEFAULT_REQUESTS_PER_SECOND, window)
    try:
        await shared.hit("key:warm-up")  # loads the script and opens the connection
        _report(f"Redis, {concurrency} at a time", await _timed_hits(shared, concurrency))
        refused = [(await shared.hit("key:one")).allowed for _ in range(DEFAULT_REQUESTS_PER_SECOND + 1)]
        assert refused.count(True) == DEFAULT_REQUESTS_PER_SECOND
    finally:
        keys = [key async for key in window.redis.scan_iter(match=f"{prefix}*")]
        if keys:
            await window.redis.delete(*keys)
        await shared.close()
