"""What the Webhooks gRPC service does with malformed requests, over a real server: a bad page,
scope or id is the caller's mistake (`invalid_request`, or `not_found` for an id that names
nothing), never an internal error. The gateway checks its query strings too, but a service does
not count on its callers for that."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.ids import new_id
from printcloud.core.scope import Scope
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc
from services.webhooks.tests.conftest import servicer
from tests.support.bad_pages import bad_pages
from tests.support.grpc_server import serving


@pytest.fixture(scope="module")
async def stub(db: Database) -> AsyncIterator[webhooks_pb2_grpc.WebhooksStub]:
    async with serving(webhooks_pb2_grpc.add_WebhooksServicer_to_server, servicer(db)) as channel:
        yield webhooks_pb2_grpc.WebhooksStub(channel)


def _scope(scope: Scope) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)


async def _code(method: Any, request: Any) -> str:
    with pytest.raises(ApiError) as raised:
        await rpc.call(method, request)
    return raised.value.code


@bad_pages
async def test_a_bad_page_is_an_invalid_request_on_every_list(
    stub: webhooks_pb2_grpc.WebhooksStub, scope: Scope, page: common_pb2.PageRequest
) -> None:
    endpoint = await rpc.call(
        stub.CreateEndpoint,
        webhooks_pb2.CreateEndpointRequest(
            scope=_scope(scope), url="http://127.0.0.1:9/hook", events=["printjob.done"]
        ),
    )
    lists = [
        (stub.ListEndpoints, webhooks_pb2.ListEndpointsRequest(scope=_scope(scope), page=page)),
        (
            stub.ListDeliveries,
            webhooks_pb2.ListDeliveriesRequest(scope=_scope(scope), endpoint_id=endpoint.id, page=page),
        ),
        (stub.ListEvents, webhooks_pb2.ListEventsRequest(scope=_scope(scope), page=page)),
    ]
    assert [await _code(method, request) for method, request in lists] == ["invalid_request"] * 3


async def test_a_good_page_still_lists(stub: webhooks_pb2_grpc.WebhooksStub, scope: Scope) -> None:
    listed = await rpc.call(
        stub.ListEndpoints,
        webhooks_pb2.ListEndpointsRequest(scope=_scope(scope), page=common_pb2.PageRequest(limit=100, dir="asc")),
    )
    assert (list(listed.items), listed.page.has_more) == ([], False)


async def test_a_malformed_scope_is_an_invalid_request(stub: webhooks_pb2_grpc.WebhooksStub, scope: Scope) -> None:
    bad_mode = common_pb2.Scope(organization_id=str(scope.organization_id), mode="staging")
    bad_organization = common_pb2.Scope(organization_id="nope", mode="live")
    for bad in (bad_mode, bad_organization):
        assert await _code(stub.ListEndpoints, webhooks_pb2.ListEndpointsRequest(scope=bad)) == "invalid_request"
        assert await _code(stub.GetEndpoint, webhooks_pb2.EndpointRef(scope=bad, id=new_id())) == "invalid_request"


async def test_an_id_that_is_not_a_uuid_names_nothing(stub: webhooks_pb2_grpc.WebhooksStub, scope: Scope) -> None:
    assert await _code(stub.GetEndpoint, webhooks_pb2.EndpointRef(scope=_scope(scope), id="nope")) == "not_found"
    assert (
        await _code(stub.ListDeliveries, webhooks_pb2.ListDeliveriesRequest(scope=_scope(scope), endpoint_id="nope"))
        == "not_found"
    )
    assert await _code(stub.ReplayDelivery, webhooks_pb2.DeliveryRef(scope=_scope(scope), id="nope")) == "not_found"
