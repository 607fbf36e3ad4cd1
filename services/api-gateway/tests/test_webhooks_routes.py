"""The webhook and event-feed routes against a fake Webhooks service behind a real gRPC hop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.http import create_app
from printcloud.core.ids import new_id
from printcloud.v1 import webhooks_pb2_grpc
from tests.support.fakes.webhooks import FakeWebhooks
from tests.support.grpc_server import serving

if TYPE_CHECKING:
    from conftest import AssertError, Tenant

DELIVERY_FIELDS = {
    "id", "endpointId", "eventId", "eventType", "payload", "attempt", "status", "responseCode",
    "responseBodyExcerpt", "nextAttemptAt", "deliveredAt", "createdAt", "attempts",
}  # fmt: skip
HOOK = {"url": "https://example.test/hook", "description": "ERP", "events": ["printjob.done"]}

# The fake, to read what reached it, and a stub that calls it over gRPC.
Served = tuple[FakeWebhooks, webhooks_pb2_grpc.WebhooksStub]


@pytest.fixture(scope="module")
async def fake() -> AsyncIterator[Served]:
    servicer = FakeWebhooks()
    async with serving(webhooks_pb2_grpc.add_WebhooksServicer_to_server, servicer) as channel:
        yield servicer, webhooks_pb2_grpc.WebhooksStub(channel)


@pytest.fixture(scope="module")
async def client(deps: GatewayDeps, fake: Served) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(replace(deps, webhooks=fake[1]))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gateway.test") as http:
        yield http


@pytest.fixture
async def keys(tenant: Any) -> dict[str, dict[str, str]]:
    return {
        scope: {"Authorization": f"Bearer {await tenant.make_key(scopes)}"}
        for scope, scopes in (("admin", ("read", "admin")), ("read", ("read",)), ("print", ("read", "print")))
    }


async def test_create_shows_the_secret_once_and_needs_admin(
    client: httpx.AsyncClient,
    keys: dict[str, dict[str, str]],
    tenant: Tenant,
    fake: Served,
    assert_error: AssertError,
) -> None:
    body = HOOK
    assert_error(await client.post("/v1/webhooks", json=body, headers=keys["print"]), 403, "insufficient_scope")
    created = await client.post("/v1/webhooks", json=body, headers=keys["admin"])
    assert created.status_code == 201
    assert created.json()["secret"].startswith("whsec_")
    request = fake[0].requests[-1]
    assert (request.url, list(request.events), request.description) == (body["url"], body["events"], "ERP")
    assert (request.scope.organization_id, request.scope.mode) == (tenant.organization_id, "test")

    listed = (await client.get("/v1/webhooks", headers=keys["read"])).json()
    assert [e["id"] for e in listed["data"]] == [created.json()["id"]]
    assert "secret" not in listed["data"][0] and listed["nextCursor"] == listed["data"][0]["id"]
    shown = (await client.get(f"/v1/webhooks/{created.json()['id']}", headers=keys["read"])).json()
    assert "secret" not in shown and shown["enabled"] is True and shown["disabledReason"] is None
    assert_error(await client.get(f"/v1/webhooks/{new_id()}", headers=keys["read"]), 404, "not_found")


async def test_bodies_are_validated_before_the_service_is_asked(
    client: httpx.AsyncClient, keys: dict[str, dict[str, str]], assert_error: AssertError
) -> None:
    admin = keys["admin"]
    for body in (
        {"events": ["printjob.done"]},
        {"url": "https://x.test", "events": "printjob.done"},
        {"url": "https://x.test", "events": []},
        {"url": "https://x.test", "events": ["printjob.done"], "secret": "mine"},
        {"url": "https://x.test", "events": ["printjob.done"], "description": None},
    ):
        assert_error(await client.post("/v1/webhooks", json=body, headers=admin), 400, "invalid_request")
    assert_error(await client.patch(f"/v1/webhooks/{new_id()}", json={"enabled": "yes"}, headers=admin), 400,
                 "invalid_request")  # fmt: skip
    bad_url = {"url": "http://10.0.0.1/hook", "events": ["printjob.done"]}
    assert_error(await client.post("/v1/webhooks", json=bad_url, headers=admin), 422, "invalid_url")


async def test_patch_delete_ping_replay(
    client: httpx.AsyncClient,
    keys: dict[str, dict[str, str]],
    fake: Served,
    assert_error: AssertError,
) -> None:
    admin, read = keys["admin"], keys["read"]
    endpoint_id = (await client.post("/v1/webhooks", json=HOOK, headers=admin)).json()["id"]
    patched = await client.patch(f"/v1/webhooks/{endpoint_id}", json={"enabled": True}, headers=admin)
    assert patched.status_code == 200 and patched.json()["enabled"] is True
    update = fake[0].requests[-1]
    assert update.HasField("enabled") and not update.HasField("url") and not update.set_events
    await client.patch(f"/v1/webhooks/{endpoint_id}", json={"events": ["printer.added"], "url": "https://y.test"},
                       headers=admin)  # fmt: skip
    update = fake[0].requests[-1]
    assert update.set_events and list(update.events) == ["printer.added"] and update.url == "https://y.test"
    assert not update.HasField("enabled")

    ping = await client.post(f"/v1/webhooks/{endpoint_id}/ping", headers=admin)
    assert ping.status_code == 202
    assert ping.json()["eventType"] == "ping" and ping.json()["payload"]["data"] == {}
    assert set(ping.json()) == DELIVERY_FIELDS
    replay = await client.post(f"/v1/webhooks/deliveries/{ping.json()['id']}/replay", headers=admin)
    assert replay.status_code == 202 and replay.json()["eventId"] == ping.json()["eventId"]
    assert_error(await client.post(f"/v1/webhooks/deliveries/{new_id()}/replay", headers=admin), 404, "not_found")
    await client.patch(f"/v1/webhooks/{endpoint_id}", json={"enabled": False}, headers=admin)
    assert_error(await client.post(f"/v1/webhooks/{endpoint_id}/ping", headers=admin), 409, "endpoint_disabled")
    assert_error(await client.post("/v1/webhooks/not-a-uuid/ping", headers=admin), 404, "not_found")

    assert_error(await client.delete(f"/v1/webhooks/{endpoint_id}", headers=read), 403, "insufficient_scope")
    deleted = await client.delete(f"/v1/webhooks/{endpoint_id}", headers=admin)
    assert deleted.status_code == 204 and deleted.content == b""
    assert_error(await client.delete(f"/v1/webhooks/{endpoint_id}", headers=admin), 404, "not_found")


async def test_delivery_log_and_feed_are_paged_for_read_keys(
    client: httpx.AsyncClient,
    keys: dict[str, dict[str, str]],
    tenant: Tenant,
    fake: Served,
    assert_error: AssertError,
) -> None:
    read = keys["read"]
    endpoint = (await client.post("/v1/webhooks", json=HOOK, headers=keys["admin"])).json()
    served = fake[0].endpoints[endpoint["id"]][1]
    fake[0].add_delivery(served, "printjob.done", status="retrying", attempt=1, response_code=500,
                         response_body_excerpt="no")  # fmt: skip
    log = (await client.get(f"/v1/webhooks/{endpoint['id']}/deliveries?limit=5", headers=read)).json()
    assert log["data"][0]["endpointId"] == endpoint["id"] and log["data"][0]["responseCode"] == 500
    assert fake[0].requests[-1].page.limit == 5 and fake[0].requests[-1].page.dir == "desc"
    endpoint_id = endpoint["id"]
    assert_error(await client.get(f"/v1/webhooks/{endpoint_id}/deliveries?after=", headers=read), 400,
                 "invalid_request")  # fmt: skip
    fake[0].add_event(tenant.organization_id, "test", "printjob.done", {"id": "j", "state": "done"})
    feed = (await client.get("/v1/events?dir=asc", headers=read)).json()
    assert feed["data"][0]["data"] == {"id": "j", "state": "done"}
    assert set(feed["data"][0]) == {"id", "type", "timestamp", "mode", "data"}
    assert fake[0].requests[-1].page.dir == "asc"
    assert_error(await client.get("/v1/events?limit=0", headers=read), 400, "invalid_request")
    assert_error(await client.get("/v1/events"), 401, "unauthorized")


async def test_the_delivery_log_across_endpoints_by_status_and_one_delivery(
    client: httpx.AsyncClient, keys: dict[str, dict[str, str]], fake: Served, assert_error: AssertError
) -> None:
    endpoints = [(await client.post("/v1/webhooks", json=HOOK, headers=keys["admin"])).json() for _ in range(2)]
    pings = [(await client.post(f"/v1/webhooks/{e['id']}/ping", headers=keys["admin"])).json() for e in endpoints]
    every = (await client.get("/v1/deliveries", headers=keys["read"])).json()
    assert [d["id"] for d in every["data"]] == [pings[1]["id"], pings[0]["id"]]
    one = await client.get("/v1/deliveries", headers=keys["read"], params={"endpointId": endpoints[0]["id"]})
    assert [d["id"] for d in one.json()["data"]] == [pings[0]["id"]]
    failed = await client.get("/v1/deliveries", headers=keys["read"], params={"status": "failed"})
    assert failed.json()["data"] == []
    assert fake[0].requests[-1].status == "failed" and not fake[0].requests[-1].HasField("endpoint_id")
    bad = {"status": "lost"}
    assert_error(await client.get("/v1/deliveries", headers=keys["read"], params=bad), 400, "invalid_request")
    not_uuid = {"endpointId": "nope"}
    assert_error(await client.get("/v1/deliveries", headers=keys["read"], params=not_uuid), 400, "invalid_request")
    got = await client.get(f"/v1/deliveries/{pings[0]['id']}", headers=keys["read"])
    assert got.status_code == 200 and set(got.json()) == DELIVERY_FIELDS and got.json()["eventType"] == "ping"
    assert_error(await client.get(f"/v1/deliveries/{new_id()}", headers=keys["read"]), 404, "not_found")
