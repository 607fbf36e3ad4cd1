"""Pools of kept-alive connections are closed once idle or pushed out, never under a request."""

from __future__ import annotations

import asyncio
import ssl

import aiohttp
import pytest

from printcloud.core.http import egress_pool
from printcloud.core.http.egress_pool import PoolsByHost


async def _closed(client: aiohttp.ClientSession) -> bool:
    # Closing runs in a task of its own; give it its turns.
    for _ in range(100):
        if client.closed:
            return True
        await asyncio.sleep(0)
    return False


async def test_a_pool_pushed_out_is_closed_when_its_last_request_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(egress_pool, "MAX_HOSTS", 2)
    pools = PoolsByHost(ssl.create_default_context)
    async with pools.lease("a.test") as first:
        async with pools.lease("b.test"):
            pass
        async with pools.lease("c.test") as third:
            pass
        assert not await _closed(first), "a pool in use must stay open"
    assert await _closed(first)
    assert not third.closed
    await pools.aclose()
    assert third.closed


async def test_an_idle_pool_is_closed_and_a_busy_one_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    pools = PoolsByHost(ssl.create_default_context)
    async with pools.lease("a.test") as first:
        pass
    async with pools.lease("A.TEST") as again:
        assert again is first, "one pool per host name, whatever its case"
    monkeypatch.setattr(egress_pool, "IDLE_SECONDS", 0.0)
    async with pools.lease("b.test"):
        pass
    assert await _closed(first)
    await pools.aclose()
