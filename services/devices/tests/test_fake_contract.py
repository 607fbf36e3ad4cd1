"""The shared `FakeDevices` (tests/support/fakes) against the real servicer: every rule other
services' tests lean on answers the same from both, so a test passing on the fake means the same
on the real service."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.ids import new_id, uuid7
from printcloud.devices.transport.servicer import DevicesServicer
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc
from tests.support.bad_pages import bad_pages
from tests.support.fakes.devices import FakeDevices
from tests.support.grpc_server import serving


@pytest.fixture(params=["real", "fake"])
async def devices(request: pytest.FixtureRequest, db: Database) -> AsyncIterator[devices_pb2_grpc.DevicesStub]:
    servicer = DevicesServicer(DeviceUseCases.on(db)) if request.param == "real" else FakeDevices()
    async with serving(devices_pb2_grpc.add_DevicesServicer_to_server, servicer) as channel:
        yield devices_pb2_grpc.DevicesStub(channel)


def _scope(mode: str = "live") -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(uuid7()), mode=mode)


async def _code(answer: Awaitable[object]) -> str:
    with pytest.raises(ApiError) as caught:
        await answer
    return caught.value.code


async def _enroll(devices: devices_pb2_grpc.DevicesStub, scope: common_pb2.Scope, hostname: str = "desk") -> str:
    request = devices_pb2.EnrollComputerRequest(scope=scope, hostname=hostname)
    enrolled = await rpc.call(devices.EnrollComputer, request)
    identity = await rpc.call(
        devices.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=enrolled.agent_credential)
    )
    assert (identity.computer_id, identity.organization_id, identity.mode) == (
        enrolled.computer.id, scope.organization_id, scope.mode,
    )  # fmt: skip
    assert identity.disabled is False
    return enrolled.computer.id


async def test_an_enrolled_computer_is_seen_in_its_scope_only(devices: devices_pb2_grpc.DevicesStub) -> None:
    scope = _scope()
    computer_id = await _enroll(devices, scope)
    found = await rpc.call(devices.GetComputer, devices_pb2.GetComputerRequest(scope=scope, id=computer_id))
    assert (found.id, found.hostname, found.mode) == (computer_id, "desk", "live")
    other_org = common_pb2.Scope(organization_id=str(uuid7()), mode="live")
    other_mode = common_pb2.Scope(organization_id=scope.organization_id, mode="test")
    for elsewhere in (other_org, other_mode):
        request = devices_pb2.GetComputerRequest(scope=elsewhere, id=computer_id)
        assert await _code(rpc.call(devices.GetComputer, request)) == "not_found"


async def test_unknown_things_are_not_found_or_unauthorized(devices: devices_pb2_grpc.DevicesStub) -> None:
    scope = _scope()
    assert (
        await _code(rpc.call(devices.GetPrinter, devices_pb2.GetPrinterRequest(scope=scope, id=new_id())))
        == "not_found"
    )
    assert (
        await _code(rpc.call(devices.GetComputer, devices_pb2.GetComputerRequest(scope=scope, id=new_id())))
        == "not_found"
    )
    request = devices_pb2.AuthenticateAgentRequest(agent_credential="agc_unknown")
    assert await _code(rpc.call(devices.AuthenticateAgent, request)) == "unauthorized"


async def test_computers_page_newest_first_with_cursors(devices: devices_pb2_grpc.DevicesStub) -> None:
    scope = _scope()
    ids = [await _enroll(devices, scope, f"desk-{n}") for n in range(3)]
    first = await rpc.call(
        devices.ListComputers, devices_pb2.ListComputersRequest(scope=scope, page=common_pb2.PageRequest(limit=2))
    )
    assert [c.id for c in first.items] == [ids[2], ids[1]]
    assert (first.page.has_more, first.page.next_cursor) == (True, ids[1])
    page = common_pb2.PageRequest(limit=2, after=ids[1])
    rest = await rpc.call(devices.ListComputers, devices_pb2.ListComputersRequest(scope=scope, page=page))
    assert [c.id for c in rest.items] == [ids[0]] and rest.page.has_more is False
    ascending = common_pb2.PageRequest(limit=5, dir="asc")
    oldest = await rpc.call(devices.ListComputers, devices_pb2.ListComputersRequest(scope=scope, page=ascending))
    assert [c.id for c in oldest.items] == ids


@bad_pages
async def test_a_bad_page_is_an_invalid_request(
    devices: devices_pb2_grpc.DevicesStub, page: common_pb2.PageRequest
) -> None:
    request = devices_pb2.ListComputersRequest(scope=_scope(), page=page)
    assert await _code(rpc.call(devices.ListComputers, request)) == "invalid_request"


async def test_a_replica_is_known_from_its_second_heartbeat(devices: devices_pb2_grpc.DevicesStub) -> None:
    request = devices_pb2.GatewayHeartbeatRequest(gateway_instance=f"gw-{new_id()}")
    assert (await rpc.call(devices.GatewayHeartbeat, request)).known is False
    assert (await rpc.call(devices.GatewayHeartbeat, request)).known is True


async def test_a_computer_is_renamed_disabled_enabled_and_deleted(devices: devices_pb2_grpc.DevicesStub) -> None:
    scope = _scope()
    computer_id = await _enroll(devices, scope)
    update = devices_pb2.UpdateComputerRequest(scope=scope, id=computer_id, name="Front desk", enabled=False)
    disabled = await rpc.call(devices.UpdateComputer, update)
    assert (disabled.name, disabled.state) == ("Front desk", "disabled")
    enabled = await rpc.call(
        devices.UpdateComputer, devices_pb2.UpdateComputerRequest(scope=scope, id=computer_id, enabled=True)
    )
    assert enabled.state == "offline", "no agent is connected"
    other_mode = common_pb2.Scope(organization_id=scope.organization_id, mode="test")
    request = devices_pb2.DeleteComputerRequest(scope=other_mode, id=computer_id)
    assert await _code(rpc.call(devices.DeleteComputer, request)) == "not_found"
    await rpc.call(devices.DeleteComputer, devices_pb2.DeleteComputerRequest(scope=scope, id=computer_id))
    gone = devices_pb2.GetComputerRequest(scope=scope, id=computer_id)
    assert await _code(rpc.call(devices.GetComputer, gone)) == "not_found"


async def test_agents_in_one_call_answer_alike(devices: devices_pb2_grpc.DevicesStub) -> None:
    scope = _scope()
    computer_id = await _enroll(devices, scope)
    hellos = [
        devices_pb2.AgentConnectedRequest(computer_id=computer_id, gateway_instance="gw-a"),
        devices_pb2.AgentConnectedRequest(computer_id=new_id(), gateway_instance="gw-a"),
    ]
    connected = await devices.AgentsConnected(devices_pb2.AgentsConnectedRequest(agents=hellos))
    assert [o.error_code for o in connected.outcomes] == ["", "not_found"]
    found = await rpc.call(devices.GetComputer, devices_pb2.GetComputerRequest(scope=scope, id=computer_id))
    assert found.state == "online"

    goodbyes = [devices_pb2.AgentDisconnectedRequest(computer_id=computer_id, gateway_instance="gw-a")]
    disconnected = await devices.AgentsDisconnected(devices_pb2.AgentsDisconnectedRequest(agents=goodbyes))
    assert [o.error_code for o in disconnected.outcomes] == [""]
    found = await rpc.call(devices.GetComputer, devices_pb2.GetComputerRequest(scope=scope, id=computer_id))
    assert found.state == "offline"

    unknown = [devices_pb2.AuthenticateAgentRequest(agent_credential="pca_unknown")]
    identities = await devices.AuthenticateAgents(devices_pb2.AuthenticateAgentsRequest(agents=unknown))
    assert [o.error_code for o in identities.outcomes] == ["unauthorized"]
