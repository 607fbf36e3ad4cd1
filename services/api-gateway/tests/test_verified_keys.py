"""Recently verified keys skip the database, and every replica forgets them when a key or its
organization changes: the rules in memory, then the real trigger and listener on PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import httpx
import pytest

from printcloud.api_gateway.domain.identity import ApiKeyIdentity
from printcloud.api_gateway.persistence.key_changes import listen_for_key_changes
from printcloud.api_gateway.persistence.verified_keys import VerifiedKeys
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.api_gateway.use_cases.accounts import Accounts
from printcloud.core.db.database import Database

if TYPE_CHECKING:
    from conftest import Tenant

IDENTITY = ApiKeyIdentity("org", "Org", "free", "test", "key-1", frozenset({"read"}))


class _Lookups:
    def __init__(self, during: VerifiedKeys | None = None) -> None:
        self.calls = 0
        self.change_during = during

    async def __call__(self, _key_hash: str) -> ApiKeyIdentity | None:
        self.calls += 1
        if self.change_during is not None:
            self.change_during.forget_all()  # a revocation commits while this lookup runs
        return IDENTITY


async def test_untrusted_keys_are_looked_up_every_time() -> None:
    verified, lookups = VerifiedKeys(), _Lookups()
    for _ in range(3):
        assert await verified.identify("h", lookups) == IDENTITY
    assert lookups.calls == 3


async def test_trusted_keys_are_looked_up_once_until_a_change_or_expiry() -> None:
    now = [0.0]
    verified, lookups = VerifiedKeys(ttl_seconds=30, clock=lambda: now[0]), _Lookups()
    verified.trust(True)
    await verified.identify("h", lookups)
    await verified.identify("h", lookups)
    assert lookups.calls == 1
    verified.forget_all()
    await verified.identify("h", lookups)
    assert lookups.calls == 2
    now[0] = 31.0
    await verified.identify("h", lookups)
    assert lookups.calls == 3
    verified.trust(False)
    await verified.identify("h", lookups)
    await verified.identify("h", lookups)
    assert lookups.calls == 5


async def test_a_lookup_overtaken_by_a_change_is_not_kept() -> None:
    verified = VerifiedKeys()
    verified.trust(True)
    racing = _Lookups(during=verified)
    await verified.identify("h", racing)
    await verified.identify("h", racing)
    assert racing.calls == 2


class _HeldLookups:
    """Lookups that wait until released, as the database's do under load."""

    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self.failure: Exception | None = None

    async def __call__(self, _key_hash: str) -> ApiKeyIdentity | None:
        self.calls += 1
        await self.release.wait()
        if self.failure is not None:
            raise self.failure
        return IDENTITY


async def test_requests_that_miss_together_share_one_lookup() -> None:
    verified, lookups = VerifiedKeys(), _HeldLookups()
    verified.trust(True)
    waiting = [asyncio.create_task(verified.identify("h", lookups)) for _ in range(16)]
    other_key = asyncio.create_task(verified.identify("other", lookups))
    await asyncio.sleep(0)  # every request has reached the lookup
    waiting[0].cancel()  # a client that went away
    lookups.release.set()
    assert await asyncio.gather(*waiting[1:]) == [IDENTITY] * 15
    assert await other_key == IDENTITY
    assert lookups.calls == 2, "one lookup for each key"
    assert await verified.identify("h", lookups) == IDENTITY and lookups.calls == 2


async def test_a_request_after_a_change_does_not_take_a_lookup_that_began_before_it() -> None:
    verified, lookups = VerifiedKeys(), _HeldLookups()
    verified.trust(True)
    before = asyncio.create_task(verified.identify("h", lookups))
    await asyncio.sleep(0)
    verified.forget_all()  # a revocation heard while the lookup runs
    after = asyncio.create_task(verified.identify("h", lookups))
    await asyncio.sleep(0)
    lookups.release.set()
    await asyncio.gather(before, after)
    assert lookups.calls == 2


async def test_a_failed_lookup_reaches_every_request_sharing_it_and_is_not_kept() -> None:
    verified, lookups = VerifiedKeys(), _HeldLookups()
    verified.trust(True)
    lookups.failure = ConnectionError("database restarting")
    waiting = [asyncio.create_task(verified.identify("h", lookups)) for _ in range(3)]
    await asyncio.sleep(0)
    lookups.release.set()
    outcomes = await asyncio.gather(*waiting, return_exceptions=True)
    assert all(isinstance(outcome, ConnectionError) for outcome in outcomes)
    lookups.failure = None
    assert await verified.identify("h", lookups) == IDENTITY
    assert lookups.calls == 2


async def test_the_oldest_entry_makes_room() -> None:
    verified, lookups = VerifiedKeys(max_entries=2), _Lookups()
    verified.trust(True)
    for key_hash in ("a", "b", "c", "b", "c"):
        await verified.identify(key_hash, lookups)
    assert lookups.calls == 3
    await verified.identify("a", lookups)
    assert lookups.calls == 4


@pytest.fixture
async def listening(database_url: str) -> AsyncIterator[VerifiedKeys]:
    verified = VerifiedKeys()
    listener = asyncio.create_task(listen_for_key_changes(database_url, verified))
    async with asyncio.timeout(10):
        while not verified.trusted:
            await asyncio.sleep(0.01)
    yield verified
    listener.cancel()
    await asyncio.gather(listener, return_exceptions=True)


@pytest.fixture
async def cached_client(deps: GatewayDeps, listening: VerifiedKeys) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(dataclasses.replace(deps, verified_keys=listening))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as http:
        yield http


async def _heard_change(verified: VerifiedKeys, before: int, within: float = 10.0) -> None:
    async with asyncio.timeout(within):
        while verified.generation == before:
            await asyncio.sleep(0.01)


@pytest.fixture
async def elsewhere(database_url: str) -> AsyncIterator[Accounts]:
    """The accounts as another process sees them (the operator CLI, another replica): own connections."""
    database = Database.connect(database_url)
    yield Accounts(database)
    await database.close()


async def test_a_revocation_elsewhere_reaches_the_replica(
    cached_client: httpx.AsyncClient, listening: VerifiedKeys, elsewhere: Accounts, tenant: Tenant
) -> None:
    headers = {"Authorization": f"Bearer {await tenant.make_key()}"}
    first = await cached_client.get("/v1/whoami", headers=headers)
    assert (await cached_client.get("/v1/whoami", headers=headers)).status_code == 200
    before = listening.generation
    assert await elsewhere.revoke_api_key(first.json()["apiKeyId"])
    await _heard_change(listening, before)
    assert (await cached_client.get("/v1/whoami", headers=headers)).status_code == 401


async def test_a_plan_change_elsewhere_reaches_the_replica(
    cached_client: httpx.AsyncClient, listening: VerifiedKeys, elsewhere: Accounts, tenant: Tenant
) -> None:
    headers = {"Authorization": f"Bearer {await tenant.make_key()}"}
    assert (await cached_client.get("/v1/whoami", headers=headers)).json()["plan"] == "free"
    before = listening.generation
    await elsewhere.set_plan(tenant.organization_id, "pro")
    await _heard_change(listening, before)
    assert (await cached_client.get("/v1/whoami", headers=headers)).json()["plan"] == "pro"


async def test_using_a_key_changes_nothing_the_replicas_hear(
    cached_client: httpx.AsyncClient, listening: VerifiedKeys, elsewhere: Accounts, tenant: Tenant
) -> None:
    headers = {"Authorization": f"Bearer {await tenant.make_key()}"}
    before = listening.generation
    assert (await cached_client.get("/v1/whoami", headers=headers)).status_code == 200  # records last_used_at
    await elsewhere.set_plan(tenant.organization_id, "free")  # a change, heard after any the use made
    await _heard_change(listening, before)
    with pytest.raises(TimeoutError):
        await _heard_change(listening, before + 1, within=0.5)  # nothing more comes
    assert listening.generation == before + 1
