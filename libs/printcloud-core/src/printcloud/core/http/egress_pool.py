"""Kept-alive connections for the guarded client: one pool per host name.

A connection is reused only for the name it was opened for. Its TLS handshake checked that name's
certificate, so a request for another name that happens to share the address must not ride on it.
The guard still resolves and checks the name before every request and asks the pool for the checked
address, so a reused connection always goes to an address that passed this request's check.

Nothing is carried between requests but the connections: cookies are refused, because one host
serves many organizations' endpoints and one answer's cookie must never reach another's request.

A pool unused for `IDLE_SECONDS`, or pushed out by `MAX_HOSTS` busier ones, is closed as soon as its
last request ends, so idle sockets stay bounded however many hosts the service talks to.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import aiohttp

# Below the 5 s idle timeout of common servers (Node.js): we close an idle connection before the
# server does, so a request does not meet a connection closed under it.
IDLE_SECONDS = 4.0
MAX_HOSTS = 64


@dataclass(eq=False)
class _Pool:
    client: aiohttp.ClientSession
    last_used: float = field(default_factory=time.monotonic)
    in_use: int = 0
    retired: bool = False


def _new_client(tls_context: ssl.SSLContext) -> aiohttp.ClientSession:
    # No connection limit here: the callers bound their own concurrency (a webhook endpoint's
    # sends, the content fetcher's). No DNS cache: the guard resolves and checks every request.
    connector = aiohttp.TCPConnector(limit=0, ssl=tls_context, use_dns_cache=False, keepalive_timeout=IDLE_SECONDS)
    # trust_env=False: proxy variables must not send a request somewhere unchecked.
    return aiohttp.ClientSession(
        connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False, auto_decompress=True,
        timeout=aiohttp.ClientTimeout(total=None),
    )  # fmt: skip


class PoolsByHost:
    def __init__(self, tls_context: Callable[[], ssl.SSLContext]) -> None:
        self._tls_context = tls_context
        self._pools: OrderedDict[str, _Pool] = OrderedDict()  # least recently used first
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def lease(self, host: str) -> AsyncIterator[aiohttp.ClientSession]:
        """The client whose connections serve `host`, for the length of one request."""
        pool = self._pool_for(host.lower())
        pool.in_use += 1
        try:
            yield pool.client
        finally:
            pool.in_use -= 1
            pool.last_used = time.monotonic()
            if pool.retired and not pool.in_use:
                self._close(pool)

    def _pool_for(self, host: str) -> _Pool:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            # Connections belong to the event loop that opened them; another loop starts afresh.
            self._pools = OrderedDict()
            self._loop = loop
        pool = self._pools.pop(host, None) or _Pool(_new_client(self._tls_context()))
        self._retire_idle_and_excess()
        self._pools[host] = pool
        return pool

    def _retire_idle_and_excess(self) -> None:
        idle_since = time.monotonic() - IDLE_SECONDS
        while self._pools:
            oldest = next(iter(self._pools.values()))
            if len(self._pools) < MAX_HOSTS and (oldest.in_use or oldest.last_used > idle_since):
                return
            self._pools.popitem(last=False)
            oldest.retired = True
            if not oldest.in_use:
                self._close(oldest)

    def _close(self, pool: _Pool) -> None:
        # A task of its own: a request cancelled by its timeout must not cut the closing short.
        task = asyncio.ensure_future(pool.client.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def aclose(self) -> None:
        pools, self._pools = list(self._pools.values()), OrderedDict()
        for pool in pools:
            self._close(pool)
        await asyncio.gather(*self._closing, return_exceptions=True)
