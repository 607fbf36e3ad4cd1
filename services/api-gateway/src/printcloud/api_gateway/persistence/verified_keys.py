"""API keys verified recently, kept in the replica's memory in front of the database's lookup
(`Accounts.identify`), so that a busy caller's requests skip the database.

An entry is served only while the replica hears every change to keys and organizations
(`key_changes.py` listens; `trust` says whether it does). Each change forgets every
entry: revocations and plan changes are rare, and forgetting all is what cannot miss one. A lookup
that began before a change is not stored after it (`generation`), so it cannot bring back a key
revoked while it ran. The replica that ends keys (a revocation, a deleted organization) also
forgets at once, before it answers, so the caller's next request to it is refused whenever the
notification arrives. Entries also expire, which keeps `last_used_at` within a minute or so.

Requests that miss together share one lookup: when a busy caller's entry expires, its concurrent
requests would otherwise each query the database at the same moment. Only while changes are heard,
and only within one generation, so a request never takes the answer of a lookup that began
before a change it could have seen.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from printcloud.api_gateway.domain.identity import ApiKeyIdentity

DEFAULT_TTL_SECONDS = 30.0
DEFAULT_MAX_ENTRIES = 10_000

Lookup = Callable[[str], Awaitable[ApiKeyIdentity | None]]


class VerifiedKeys:
    def __init__(
        self,
        ttl_seconds: float = DEFAULT_TTL_SECONDS,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl = ttl_seconds
        self._max_entries = max_entries
        self._clock = clock
        self._entries: dict[str, tuple[ApiKeyIdentity, float]] = {}
        self._generation = 0
        self._trusted = False
        self._lookups: dict[tuple[str, int], asyncio.Future[ApiKeyIdentity | None]] = {}

    @property
    def trusted(self) -> bool:
        return self._trusted

    @property
    def generation(self) -> int:
        """Moves on with every change heard (and every loss or return of trust)."""
        return self._generation

    def trust(self, trusted: bool) -> None:
        """True once changes are heard; False as soon as they may not be (a lost connection)."""
        self.forget_all()
        self._trusted = trusted

    def forget_all(self) -> None:
        self._entries.clear()
        self._generation += 1

    async def identify(self, key_hash: str, lookup: Lookup) -> ApiKeyIdentity | None:
        """The identity behind `key_hash`, from memory when verified recently, else from `lookup`."""
        if not self._trusted:
            return await lookup(key_hash)
        entry = self._entries.get(key_hash)
        if entry is not None and entry[1] > self._clock():
            return entry[0]
        generation = self.generation
        shared = self._lookups.get((key_hash, generation))
        if shared is None:
            shared = asyncio.ensure_future(lookup(key_hash))
            self._lookups[key_hash, generation] = shared
            shared.add_done_callback(lambda done: self._looked_up(key_hash, generation, done))
        # Shielded: a caller that goes away (a client disconnecting) must not cancel the others'.
        return await asyncio.shield(shared)

    def _looked_up(self, key_hash: str, generation: int, done: asyncio.Future[ApiKeyIdentity | None]) -> None:
        del self._lookups[key_hash, generation]
        if done.cancelled() or done.exception() is not None:
            return  # each waiting caller raises it
        identity = done.result()
        if identity is not None and self._trusted and generation == self.generation:
            if len(self._entries) >= self._max_entries:
                del self._entries[next(iter(self._entries))]  # the oldest
            self._entries[key_hash] = (identity, self._clock() + self._ttl)
