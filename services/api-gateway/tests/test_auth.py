from __future__ import annotations

import base64
import hashlib
from typing import TYPE_CHECKING

import httpx
from sqlalchemy import text

from printcloud.core.db.database import Database

if TYPE_CHECKING:
    from conftest import AssertError, Tenant


def basic(user: str, password: str = "") -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


async def test_whoami_with_bearer_key(client: httpx.AsyncClient, tenant: Tenant) -> None:
    key = await tenant.make_key(("read",), mode="live")
    response = await client.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 200
    body = response.json()
    assert body["mode"] == "live"
    assert body["organization"] == {"id": tenant.organization_id, "name": tenant.name}
    assert body["plan"] == "free"
    assert set(body) == {"apiKeyId", "mode", "organization", "plan"}


async def test_basic_auth_takes_the_key_as_user_with_empty_password(client: httpx.AsyncClient, tenant: Tenant) -> None:
    key = await tenant.make_key(("read",))
    response = await client.get("/v1/whoami", headers=basic(key))
    assert response.status_code == 200
    assert response.json()["mode"] == "test"


async def test_basic_auth_with_a_password_is_refused(
    client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    key = await tenant.make_key(("read",))
    assert_error(await client.get("/v1/whoami", headers=basic(key, "x")), 401, "unauthorized")
    no_colon = {"Authorization": "Basic " + base64.b64encode(key.encode()).decode()}
    assert_error(await client.get("/v1/whoami", headers=no_colon), 401, "unauthorized")


async def test_missing_and_invalid_keys_answer_401_with_both_challenges(
    client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    key = await tenant.make_key()
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer svc_test_not-a-real-key"},
        {"Authorization": "Bearer " + key + "x"},
        {"Authorization": "Token " + key},
        {"Authorization": "Basic !!!"},
    ):
        response = await client.get("/v1/printers", headers=headers)
        assert_error(response, 401, "unauthorized")
        challenges = response.headers.get_list("www-authenticate")
        assert any(c.startswith("Bearer") for c in challenges)
        assert any(c.startswith("Basic") for c in challenges)


async def test_revoked_key_is_refused(
    client: httpx.AsyncClient, tenant: Tenant, db: Database, assert_error: AssertError
) -> None:
    key = await tenant.make_key()
    assert (await client.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"})).status_code == 200
    async with db.transaction() as session:
        await session.execute(
            text("UPDATE gateway.api_keys SET revoked_at = now() WHERE key_hash = :h"),
            {"h": hashlib.sha256(key.encode()).hexdigest()},
        )
    assert_error(await client.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"}), 401, "unauthorized")


async def test_use_is_recorded_on_the_key(client: httpx.AsyncClient, tenant: Tenant, db: Database) -> None:
    key = await tenant.make_key()
    await client.get("/v1/whoami", headers={"Authorization": f"Bearer {key}"})
    async with db.read() as session:
        last_used = await session.scalar(
            text("SELECT last_used_at FROM gateway.api_keys WHERE key_hash = :h"),
            {"h": hashlib.sha256(key.encode()).hexdigest()},
        )
    assert last_used is not None


async def test_scopes_are_enforced_per_endpoint(
    client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    read_only = {"Authorization": f"Bearer {await tenant.make_key(('read',))}"}
    print_only = {"Authorization": f"Bearer {await tenant.make_key(('print',))}"}
    job_id = "018f0000-0000-7000-8000-000000000001"

    assert_error(await client.post("/v1/printjobs", headers=read_only, json={}), 403, "insufficient_scope")
    assert_error(await client.post(f"/v1/printjobs/{job_id}/cancel", headers=read_only), 403, "insufficient_scope")
    assert_error(await client.get("/v1/printers", headers=print_only), 403, "insufficient_scope")
    assert_error(await client.get(f"/v1/printjobs/{job_id}", headers=print_only), 403, "insufficient_scope")
    assert_error(
        await client.post("/v1/agent/enroll", headers=read_only, json={"hostname": "h"}), 403, "insufficient_scope"
    )
    # whoami needs a valid key, whatever its scopes.
    assert (await client.get("/v1/whoami", headers=print_only)).status_code == 200


async def test_authentication_is_checked_before_the_body(
    client: httpx.AsyncClient, tenant: Tenant, assert_error: AssertError
) -> None:
    no_key = {"Content-Type": "application/json"}
    assert_error(await client.post("/v1/printjobs", content=b"{not json", headers=no_key), 401, "unauthorized")
    read_only = {"Authorization": f"Bearer {await tenant.make_key(('read',))}", "Content-Type": "application/json"}
    response = await client.post("/v1/printjobs", content=b"{not json", headers=read_only)
    assert_error(response, 403, "insufficient_scope")
