"""The shared window on the machine's Redis, each test under a key prefix of its own."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from printcloud.api_gateway.persistence.redis_rate_limits import RedisWindow

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture
async def windows() -> AsyncIterator[list[RedisWindow]]:
    """Two clients on one prefix, as two gateway replicas would be."""
    prefix = f"printcloud-test:{uuid.uuid4()}:"
    made = [RedisWindow.connect(REDIS_URL, 20, prefix, 1.0) for _ in range(2)]
    yield made
    keys = [key async for key in made[0].redis.scan_iter(match=f"{prefix}*")]
    if keys:
        await made[0].redis.delete(*keys)
    for window in made:
        await window.close()


async def test_concurrent_hits_from_two_clients_admit_exactly_the_limit(windows: list[RedisWindow]) -> None:
    decisions = await asyncio.gather(*(windows[n % 2].hit("key:a") for n in range(100)))
    admitted = [d for d in decisions if d.allowed]
    assert len(admitted) == 20
    assert sorted(d.remaining for d in admitted) == list(range(20))
    refused = [d for d in decisions if not d.allowed]
    assert all(d.remaining == 0 and 0 < d.reset_seconds <= 1 and d.retry_after == 1 for d in refused)
    assert (await windows[1].hit("key:b")).remaining == 19


async def test_the_key_expires_with_its_window(windows: list[RedisWindow]) -> None:
    await windows[0].hit("key:c")
    ttl = await windows[0].redis.pttl(windows[0].key_prefix + "key:c")
    assert 0 < ttl <= 1000
