"""Service tokens: who signs, who is let in, for how long; and the gRPC server that checks them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.rpc.service_auth import (
    API_GATEWAY,
    JOBS,
    TOKEN_LIFETIME_SECONDS,
    VIRTUAL_FLEET,
    CallerCredential,
    TokenVerifier,
    mint,
)
from printcloud.v1 import common_pb2, webhooks_pb2, webhooks_pb2_grpc

SECRET = "internal-secret-of-at-least-32-characters"
WEBHOOKS_METHOD = "/printcloud.v1.Webhooks/GetEndpoint"


def test_a_token_names_its_caller_while_fresh() -> None:
    verifier = TokenVerifier(SECRET, clock=lambda: 10_000)
    assert verifier.caller_of(mint(SECRET, API_GATEWAY, 10_000)) == API_GATEWAY
    assert verifier.caller_of(mint(SECRET, API_GATEWAY, 10_000 - TOKEN_LIFETIME_SECONDS)) == API_GATEWAY
    assert verifier.caller_of(mint(SECRET, API_GATEWAY, 10_000 - TOKEN_LIFETIME_SECONDS - 1)) is None
    assert verifier.caller_of(mint(SECRET, API_GATEWAY, 10_000 + TOKEN_LIFETIME_SECONDS + 1)) is None


@pytest.mark.parametrize(
    "token",
    [
        None,
        "",
        "garbage",
        mint("another-secret-of-at-least-32-characters", API_GATEWAY, 10_000),
        mint(SECRET, API_GATEWAY, 10_000).replace(API_GATEWAY, JOBS),
        "v1.api-gateway." + "9" * 5000 + ".00",
    ],
)
def test_forged_or_malformed_tokens_name_nobody(token: str | None) -> None:
    assert TokenVerifier(SECRET, clock=lambda: 10_000).caller_of(token) is None


def test_a_remembered_token_still_expires() -> None:
    now = [10_000.0]
    verifier = TokenVerifier(SECRET, clock=lambda: now[0])
    token = mint(SECRET, API_GATEWAY, 10_000)
    assert verifier.caller_of(token) == API_GATEWAY
    now[0] += TOKEN_LIFETIME_SECONDS + 1
    assert verifier.caller_of(token) is None


def test_only_listed_callers_may_call_a_service() -> None:
    verifier = TokenVerifier(SECRET, clock=lambda: 10_000)
    assert verifier.refusal(WEBHOOKS_METHOD, mint(SECRET, API_GATEWAY, 10_000)) is None
    assert verifier.refusal(WEBHOOKS_METHOD, mint(SECRET, JOBS, 10_000)) == "jobs may not call printcloud.v1.Webhooks"
    assert verifier.refusal(WEBHOOKS_METHOD, None) == "missing, invalid or expired service token"


def test_the_virtual_fleet_may_call_only_its_two_methods_of_devices() -> None:
    verifier = TokenVerifier(SECRET, clock=lambda: 10_000)
    fleet = mint(SECRET, VIRTUAL_FLEET, 10_000)
    assert verifier.refusal("/printcloud.v1.Devices/ListVirtualComputers", fleet) is None
    assert verifier.refusal("/printcloud.v1.Devices/IssueVirtualAgentCredential", fleet) is None
    assert (
        verifier.refusal("/printcloud.v1.Devices/GetComputer", fleet)
        == "virtual-fleet may not call printcloud.v1.Devices/GetComputer"
    )
    assert verifier.refusal("/printcloud.v1.Jobs/GetJob", fleet) == "virtual-fleet may not call printcloud.v1.Jobs"
    gateway = mint(SECRET, API_GATEWAY, 10_000)
    assert verifier.refusal("/printcloud.v1.Devices/GetComputer", gateway) is None, "others keep their whole services"


def test_a_caller_signs_anew_every_minute() -> None:
    now = [10_000.0]
    credential = CallerCredential(API_GATEWAY, SECRET, clock=lambda: now[0])
    first = credential.token()
    now[0] += 59
    assert credential.token() == first
    now[0] += 1
    assert credential.token() != first


class _Webhooks(webhooks_pb2_grpc.WebhooksServicer):
    async def GetEndpoint(self, request: Any, context: Any) -> Any:
        return webhooks_pb2.WebhookEndpoint(id=request.id)


@pytest.fixture
async def target() -> AsyncIterator[str]:
    server = rpc.create_server(TokenVerifier(SECRET))
    webhooks_pb2_grpc.add_WebhooksServicer_to_server(_Webhooks(), server)
    port = await rpc.start_server(server, "127.0.0.1:0")
    yield f"127.0.0.1:{port}"
    await server.stop(None)


async def _get(target: str, credential: CallerCredential | None) -> Any:
    channel = rpc.channel(target, credential)
    try:
        stub = webhooks_pb2_grpc.WebhooksStub(channel)
        request = webhooks_pb2.EndpointRef(scope=common_pb2.Scope(organization_id="o", mode="test"), id="e1")
        return await rpc.call(stub.GetEndpoint, request)
    finally:
        await channel.close()


async def test_the_server_answers_an_allowed_caller(target: str) -> None:
    assert (await _get(target, CallerCredential(API_GATEWAY, SECRET))).id == "e1"


@pytest.mark.parametrize(
    "credential",
    [None, CallerCredential(JOBS, SECRET), CallerCredential(API_GATEWAY, "a-wrong-secret-of-at-least-32-chars")],
)
async def test_the_server_refuses_before_any_handler_runs(target: str, credential: CallerCredential | None) -> None:
    with pytest.raises(ApiError) as refused:
        await _get(target, credential)
    # An internal error to whoever is behind the caller: a misconfigured service, never their 401.
    assert refused.value.code == "internal_error"


async def test_the_refusal_is_unauthenticated_on_the_wire(target: str) -> None:
    channel = grpc.aio.insecure_channel(target)
    stub = webhooks_pb2_grpc.WebhooksStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.GetEndpoint(webhooks_pb2.EndpointRef(id="e1"))
    await channel.close()
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
