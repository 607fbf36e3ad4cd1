"""The shared `FakeWebhooks` (tests/support/fakes) against the real servicer: the rules the
api-gateway's route tests lean on answer the same from both."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.ids import new_id
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from services.webhooks.tests.conftest import LOOPBACK_ONLY, servicer
from tests.support.fakes.webhooks import FakeWebhooks
from tests.support.grpc_server import serving

HOOK_URL = "http://127.0.0.1:9/hook"


@pytest.fixture(params=["real", "fake"])
async def webhooks(request: pytest.FixtureRequest, db: Database) -> AsyncIterator[webhooks_pb2_grpc.WebhooksStub]:
    if request.param == "real":
        tested: webhooks_pb2_grpc.WebhooksServicer = servicer(db)
    else:
        tested = FakeWebhooks(guard=LOOPBACK_ONLY)
    async with serving(webhooks_pb2_grpc.add_WebhooksServicer_to_server, tested) as channel:
        yield webhooks_pb2_grpc.WebhooksStub(channel)


def _scope(mode: str = "test") -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(uuid.uuid4()), mode=mode)


async def _code(answer: Awaitable[object]) -> str:
    with pytest.raises(ApiError) as caught:
        await answer
    return caught.value.code


async def _create(webhooks: webhooks_pb2_grpc.WebhooksStub, scope: common_pb2.Scope) -> webhooks_pb2.WebhookEndpoint:
    request = webhooks_pb2.CreateEndpointRequest(scope=scope, url=HOOK_URL, events=["printjob.done", "printjob.done"])
    return await rpc.call(webhooks.CreateEndpoint, request)


async def test_an_endpoint_shows_its_secret_once_and_lives_in_its_scope(
    webhooks: webhooks_pb2_grpc.WebhooksStub,
) -> None:
    scope = _scope()
    created = await _create(webhooks, scope)
    assert created.secret.startswith("whsec_") and created.enabled and list(created.events) == ["printjob.done"]
    shown = await rpc.call(webhooks.GetEndpoint, webhooks_pb2.EndpointRef(scope=scope, id=created.id))
    assert not shown.HasField("secret") and shown.url == HOOK_URL
    other_mode = common_pb2.Scope(organization_id=scope.organization_id, mode="live")
    assert await _code(rpc.call(webhooks.GetEndpoint, webhooks_pb2.EndpointRef(scope=other_mode, id=created.id))) == (
        "not_found"
    )
    listed = await rpc.call(webhooks.ListEndpoints, webhooks_pb2.ListEndpointsRequest(scope=scope))
    assert [e.id for e in listed.items] == [created.id] and listed.page.next_cursor == created.id
    await rpc.call(webhooks.DeleteEndpoint, webhooks_pb2.EndpointRef(scope=scope, id=created.id))
    assert await _code(rpc.call(webhooks.DeleteEndpoint, webhooks_pb2.EndpointRef(scope=scope, id=created.id))) == (
        "not_found"
    )


@pytest.mark.parametrize(
    ("url", "mode"), [("http://10.0.0.1/hook", "test"), ("http://127.0.0.2/hook", "test"), (HOOK_URL, "live")]
)
async def test_a_url_the_guard_refuses_is_invalid(
    webhooks: webhooks_pb2_grpc.WebhooksStub, url: str, mode: str
) -> None:
    request = webhooks_pb2.CreateEndpointRequest(scope=_scope(mode), url=url, events=["printjob.done"])
    assert await _code(rpc.call(webhooks.CreateEndpoint, request)) == "invalid_url"


async def test_an_unknown_event_type_is_refused(webhooks: webhooks_pb2_grpc.WebhooksStub) -> None:
    request = webhooks_pb2.CreateEndpointRequest(scope=_scope(), url=HOOK_URL, events=["printjob.lost"])
    assert await _code(rpc.call(webhooks.CreateEndpoint, request)) == "invalid_request"


async def test_pings_and_replays_need_an_enabled_endpoint(webhooks: webhooks_pb2_grpc.WebhooksStub) -> None:
    scope = _scope()
    endpoint = await _create(webhooks, scope)
    ref = webhooks_pb2.EndpointRef(scope=scope, id=endpoint.id)
    ping = await rpc.call(webhooks.PingEndpoint, ref)
    assert (ping.endpoint_id, ping.event_type, ping.status, ping.attempt) == (endpoint.id, "ping", "pending", 0)
    replay = await rpc.call(webhooks.ReplayDelivery, webhooks_pb2.DeliveryRef(scope=scope, id=ping.id))
    assert replay.event_id == ping.event_id and replay.id != ping.id
    unknown = webhooks_pb2.DeliveryRef(scope=scope, id=new_id())
    assert await _code(rpc.call(webhooks.ReplayDelivery, unknown)) == "not_found"
    disable = webhooks_pb2.UpdateEndpointRequest(scope=scope, id=endpoint.id, enabled=False)
    assert (await rpc.call(webhooks.UpdateEndpoint, disable)).enabled is False
    assert await _code(rpc.call(webhooks.PingEndpoint, ref)) == "endpoint_disabled"
    replay_ref = webhooks_pb2.DeliveryRef(scope=scope, id=ping.id)
    assert await _code(rpc.call(webhooks.ReplayDelivery, replay_ref)) == "endpoint_disabled"
    log = await rpc.call(
        webhooks.ListDeliveries, webhooks_pb2.ListDeliveriesRequest(scope=scope, endpoint_id=endpoint.id)
    )
    assert [d.id for d in log.items] == [replay.id, ping.id], "newest first"


async def test_the_delivery_log_across_endpoints_filters_by_status_and_stays_in_scope(
    webhooks: webhooks_pb2_grpc.WebhooksStub,
) -> None:
    scope = _scope()
    first, second = await _create(webhooks, scope), await _create(webhooks, scope)
    pings = [
        await rpc.call(webhooks.PingEndpoint, webhooks_pb2.EndpointRef(scope=scope, id=endpoint.id))
        for endpoint in (first, second)
    ]
    every = await rpc.call(webhooks.ListDeliveries, webhooks_pb2.ListDeliveriesRequest(scope=scope))
    assert [d.id for d in every.items] == [pings[1].id, pings[0].id], "both endpoints, newest first"
    pending = webhooks_pb2.ListDeliveriesRequest(scope=scope, status="pending")
    assert len((await rpc.call(webhooks.ListDeliveries, pending)).items) == 2
    failed = webhooks_pb2.ListDeliveriesRequest(scope=scope, status="failed")
    assert list((await rpc.call(webhooks.ListDeliveries, failed)).items) == []
    unknown = webhooks_pb2.ListDeliveriesRequest(scope=scope, status="lost")
    assert await _code(rpc.call(webhooks.ListDeliveries, unknown)) == "invalid_request"

    got = await rpc.call(webhooks.GetDelivery, webhooks_pb2.DeliveryRef(scope=scope, id=pings[0].id))
    assert (got.id, got.endpoint_id, got.event_type) == (pings[0].id, first.id, "ping")
    elsewhere = common_pb2.Scope(organization_id=scope.organization_id, mode="live")
    assert (
        list((await rpc.call(webhooks.ListDeliveries, webhooks_pb2.ListDeliveriesRequest(scope=elsewhere))).items) == []
    )
    hidden = webhooks_pb2.DeliveryRef(scope=elsewhere, id=pings[0].id)
    assert await _code(rpc.call(webhooks.GetDelivery, hidden)) == "not_found"
