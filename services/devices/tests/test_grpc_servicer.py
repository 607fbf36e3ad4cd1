"""The Devices gRPC service end to end over a real server, client stubs and PostgreSQL."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.ids import new_id, uuid7
from printcloud.core.scope import Scope
from printcloud.devices.transport.servicer import DevicesServicer
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.v1 import common_pb2, devices_pb2, devices_pb2_grpc
from tests.support.bad_pages import bad_pages
from tests.support.grpc_server import serving

CAPABILITIES = {"papers": {"A4": [2100, 2970]}, "duplex": True, "copies": 99}


@pytest.fixture(scope="session")
async def stub(db: Database) -> AsyncIterator[devices_pb2_grpc.DevicesStub]:
    async with serving(
        devices_pb2_grpc.add_DevicesServicer_to_server, DevicesServicer(DeviceUseCases.on(db))
    ) as channel:
        yield devices_pb2_grpc.DevicesStub(channel)


def scope_proto(scope: Scope) -> common_pb2.Scope:
    return common_pb2.Scope(organization_id=str(scope.organization_id), mode=scope.mode)


def printer_report(name: str, **overrides: Any) -> devices_pb2.PrinterReport:
    values: dict[str, Any] = {
        "name": name,
        "os_name": f"OS {name}",
        "description": "Laser",
        "state": "online",
        "capabilities_json": json.dumps(CAPABILITIES),
        "default_options_json": json.dumps({"paper": "A4"}),
    }
    return devices_pb2.PrinterReport(**{**values, **overrides})


async def expect_error(code: str, method: Any, request: Any) -> ApiError:
    with pytest.raises(ApiError) as caught:
        await rpc.call(method, request)
    assert caught.value.code == code
    return caught.value


async def enroll_and_connect(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> tuple[devices_pb2.Computer, str]:
    enrolled = await rpc.call(
        stub.EnrollComputer, devices_pb2.EnrollComputerRequest(scope=scope_proto(scope), hostname="desk-1")
    )
    identity = await rpc.call(
        stub.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=enrolled.agent_credential)
    )
    computer = await rpc.call(
        stub.AgentConnected,
        devices_pb2.AgentConnectedRequest(
            computer_id=identity.computer_id,
            computer=devices_pb2.ComputerReport(hostname="desk-1", os="windows", os_version="11", arch="x64"),
            printers=[printer_report("office")],
            gateway_instance="gw-a",
        ),
    )
    return computer, enrolled.agent_credential


async def test_enrol_authenticate_connect_and_read_back(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> None:
    computer, credential = await enroll_and_connect(stub, scope)
    assert (computer.name, computer.state, computer.os, computer.mode) == ("desk-1", "online", "windows", "live")
    assert computer.HasField("last_seen_at")

    identity = await rpc.call(stub.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=credential))
    assert (identity.computer_id, identity.organization_id, identity.disabled) == (
        computer.id,
        str(scope.organization_id),
        False,
    )

    listed = await rpc.call(
        stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=scope_proto(scope), computer_id=computer.id)
    )
    (office,) = listed.items
    assert not listed.page.has_more and listed.page.next_cursor == office.id
    fetched = await rpc.call(stub.GetPrinter, devices_pb2.GetPrinterRequest(scope=scope_proto(scope), id=office.id))
    assert (fetched.display_name, fetched.enabled, fetched.computer_os, fetched.mode) == (
        "OS office",
        True,
        "windows",
        "live",
    )
    assert json.loads(fetched.capabilities_json) == CAPABILITIES
    assert json.loads(fetched.default_options_json) == {"paper": "A4"}
    assert not fetched.HasField("remarks")

    computers = await rpc.call(stub.ListComputers, devices_pb2.ListComputersRequest(scope=scope_proto(scope)))
    assert [c.id for c in computers.items] == [computer.id]
    got = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=scope_proto(scope), id=computer.id))
    assert got.state == "online"


async def test_another_organization_or_mode_gets_not_found(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> None:
    computer, _ = await enroll_and_connect(stub, scope)
    mine = await rpc.call(stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=scope_proto(scope)))
    printer_id = mine.items[0].id
    for outsider in (Scope(scope.organization_id, "test"), Scope(uuid7(), "live")):
        other = scope_proto(outsider)
        await expect_error("not_found", stub.GetComputer, devices_pb2.GetComputerRequest(scope=other, id=computer.id))
        await expect_error("not_found", stub.GetPrinter, devices_pb2.GetPrinterRequest(scope=other, id=printer_id))
        await expect_error(
            "not_found", stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=other, computer_id=computer.id)
        )
    await expect_error("not_found", stub.GetPrinter, devices_pb2.GetPrinterRequest(scope=scope_proto(scope), id="x"))


async def test_bad_credentials_are_unauthorized(stub: devices_pb2_grpc.DevicesStub) -> None:
    for credential in ("", "pca_unknown", "sk_test_123"):
        await expect_error(
            "unauthorized", stub.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=credential)
        )


async def test_malformed_requests_are_invalid(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> None:
    computer, _ = await enroll_and_connect(stub, scope)
    for reports in (
        [printer_report("a", capabilities_json="[1, 2]")],
        [printer_report("a", default_options_json="{not json")],
        [printer_report("a"), printer_report("a")],
        [printer_report("a", state="asleep")],
    ):
        await expect_error(
            "invalid_request",
            stub.ReportPrinters,
            devices_pb2.ReportPrintersRequest(computer_id=computer.id, printers=reports),
        )
    await expect_error(
        "invalid_request",
        stub.ListComputers,
        devices_pb2.ListComputersRequest(scope=common_pb2.Scope(organization_id="acme", mode="live")),
    )
    await expect_error(
        "invalid_request", stub.EnrollComputer, devices_pb2.EnrollComputerRequest(scope=scope_proto(scope), name=" ")
    )
    # A rejected report must not have changed anything.
    listed = await rpc.call(stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=scope_proto(scope)))
    assert [p.name for p in listed.items] == ["office"]


async def test_reports_and_disconnects_move_printer_states(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> None:
    computer, _ = await enroll_and_connect(stub, scope)
    jammed = printer_report("label", state="offline", state_detail="Jam", state_reasons=["media-jam-error", "none"])
    reported = await rpc.call(
        stub.ReportPrinters,
        devices_pb2.ReportPrintersRequest(computer_id=computer.id, printers=[printer_report("office"), jammed]),
    )
    assert [(p.name, p.state, list(p.state_reasons)) for p in reported.items] == [
        ("office", "online", []),
        ("label", "offline", ["media-jam"]),
    ]

    await rpc.call(stub.AgentSeen, devices_pb2.AgentSeenRequest(computer_ids=[computer.id, new_id()]))
    seen = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=scope_proto(scope), id=computer.id))
    assert seen.HasField("last_seen_at"), "an unknown id in the beat does not fail the others"
    await rpc.call(
        stub.AgentDisconnected,
        devices_pb2.AgentDisconnectedRequest(computer_id=computer.id, gateway_instance="gw-other"),
    )
    got = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=scope_proto(scope), id=computer.id))
    assert got.state == "online", "a replica that no longer holds the agent cannot disconnect it"

    await rpc.call(
        stub.AgentDisconnected,
        devices_pb2.AgentDisconnectedRequest(computer_id=computer.id, gateway_instance="gw-a"),
    )
    got = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=scope_proto(scope), id=computer.id))
    listed = await rpc.call(stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=scope_proto(scope)))
    assert got.state == "offline"
    assert {(p.state, p.state_detail, tuple(p.state_reasons)) for p in listed.items} == {
        ("offline", "Computer is offline", ())
    }
    await expect_error("not_found", stub.AgentSeen, devices_pb2.AgentSeenRequest(computer_ids=["not-a-uuid"]))


async def test_virtual_printers_carry_the_os_they_emulate(
    stub: devices_pb2_grpc.DevicesStub, db: Database, scope: Scope
) -> None:
    computer = await DeviceUseCases.on(db).virtual_computers.ensure_virtual_computer(scope.organization_id)
    test_scope = scope_proto(Scope(scope.organization_id, "test"))
    listed = await rpc.call(stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=test_scope))
    assert {p.name: p.computer_os for p in listed.items} == {
        "virtual-office": "linux",
        "virtual-label": "linux",
        "virtual-windows": "windows",
        "virtual-photo": "macos",
    }
    got = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=test_scope, id=str(computer.id)))
    assert got.is_virtual and got.name == "Virtual computer"


async def test_a_rendered_printer_page_is_the_page_of_its_items_as_the_api_renders_it(
    stub: devices_pb2_grpc.DevicesStub, db: Database, scope: Scope
) -> None:
    """The gateway forwards `rendered` pages as they come: they must be what it would render itself,
    on every page of a walk (the cursor included) and for one computer's printers."""
    computer = await DeviceUseCases.on(db).virtual_computers.ensure_virtual_computer(scope.organization_id)
    test_scope = scope_proto(Scope(scope.organization_id, "test"))
    after: str | None = None
    pages = 0
    while True:
        asked = common_pb2.PageRequest(limit=3, after=after, dir="asc")
        for computer_id in (None, str(computer.id)):
            request = devices_pb2.ListPrintersRequest(scope=test_scope, page=asked, computer_id=computer_id)
            listed = await rpc.call(stub.ListPrinters, request)
            request.rendered = True
            rendered = await rpc.call(stub.ListPrinters, request)
            assert not rendered.items and not rendered.HasField("page")
            shown = representations.page(listed.items, listed.page, representations.printer)
            assert rendered.representation.json == representations.as_json(shown)
            assert json.loads(rendered.representation.json)["data"][0]["id"] == listed.items[0].id
        pages += 1
        if not listed.page.has_more:
            break
        after = listed.page.next_cursor
    assert pages == 2


@bad_pages
async def test_a_bad_page_is_an_invalid_request_on_every_list(
    stub: devices_pb2_grpc.DevicesStub, scope: Scope, page: common_pb2.PageRequest
) -> None:
    """The service checks a page as the gateway checks the query string; it does not count on it."""
    computer, _ = await enroll_and_connect(stub, scope)
    lists = [
        (stub.ListComputers, devices_pb2.ListComputersRequest(scope=scope_proto(scope), page=page)),
        (stub.ListPrinters, devices_pb2.ListPrintersRequest(scope=scope_proto(scope), page=page)),
        (
            stub.ListPrinters,
            devices_pb2.ListPrintersRequest(scope=scope_proto(scope), computer_id=computer.id, page=page),
        ),
    ]
    for method, request in lists:
        await expect_error("invalid_request", method, request)


async def test_a_malformed_scope_is_an_invalid_request(stub: devices_pb2_grpc.DevicesStub, scope: Scope) -> None:
    for bad in (
        common_pb2.Scope(organization_id=str(scope.organization_id), mode="staging"),
        common_pb2.Scope(organization_id="nope", mode="live"),
    ):
        await expect_error("invalid_request", stub.ListComputers, devices_pb2.ListComputersRequest(scope=bad))
        await expect_error("invalid_request", stub.GetPrinter, devices_pb2.GetPrinterRequest(scope=bad, id=new_id()))


async def test_the_fleets_rpcs_list_virtual_computers_and_issue_credentials_for_them_only(
    stub: devices_pb2_grpc.DevicesStub, db: Database, scope: Scope
) -> None:
    virtual = await DeviceUseCases.on(db).virtual_computers.ensure_virtual_computer(scope.organization_id)
    listed = await rpc.call(stub.ListVirtualComputers, devices_pb2.ListVirtualComputersRequest())
    assert [c.id for c in listed.items if c.organization_id == str(scope.organization_id)] == [str(virtual.id)]
    assert all(c.is_virtual and c.mode == "test" for c in listed.items)

    issue = devices_pb2.IssueVirtualAgentCredentialRequest
    issued = await rpc.call(stub.IssueVirtualAgentCredential, issue(computer_id=str(virtual.id)))
    identity = await rpc.call(
        stub.AuthenticateAgent, devices_pb2.AuthenticateAgentRequest(agent_credential=issued.agent_credential)
    )
    assert (identity.computer_id, identity.mode) == (str(virtual.id), "test")

    customers, _ = await enroll_and_connect(stub, scope)
    refused = await expect_error("forbidden", stub.IssueVirtualAgentCredential, issue(computer_id=customers.id))
    assert "virtual" in refused.message
    await expect_error("not_found", stub.IssueVirtualAgentCredential, issue(computer_id=new_id()))
    await expect_error("not_found", stub.IssueVirtualAgentCredential, issue(computer_id="not-a-uuid"))


async def test_agents_in_one_call_each_get_an_outcome_in_their_place(
    stub: devices_pb2_grpc.DevicesStub, scope: Scope
) -> None:
    computer, credential = await enroll_and_connect(stub, scope)
    report = devices_pb2.ComputerReport(hostname="desk-1", os="windows", os_version="11", arch="x64")
    hellos = [
        devices_pb2.AgentConnectedRequest(computer_id="not an id", computer=report, gateway_instance="gw-b"),
        devices_pb2.AgentConnectedRequest(
            computer_id=computer.id, computer=report, printers=[printer_report("a"), printer_report("a")]
        ),
        devices_pb2.AgentConnectedRequest(computer_id=computer.id, computer=report, gateway_instance="gw-b"),
    ]
    connected = await stub.AgentsConnected(devices_pb2.AgentsConnectedRequest(agents=hellos))
    assert [o.error_code for o in connected.outcomes] == ["not_found", "invalid_request", ""]

    goodbyes = [
        devices_pb2.AgentDisconnectedRequest(computer_id=computer.id, gateway_instance="gw-b"),
        devices_pb2.AgentDisconnectedRequest(computer_id=new_id(), gateway_instance="gw-b"),
    ]
    disconnected = await stub.AgentsDisconnected(devices_pb2.AgentsDisconnectedRequest(agents=goodbyes))
    assert [o.error_code for o in disconnected.outcomes] == ["", "not_found"]
    read = await rpc.call(stub.GetComputer, devices_pb2.GetComputerRequest(scope=scope_proto(scope), id=computer.id))
    assert read.state == "offline"

    credentials = [devices_pb2.AuthenticateAgentRequest(agent_credential=c) for c in ("pca_unknown", credential)]
    identities = await stub.AuthenticateAgents(devices_pb2.AuthenticateAgentsRequest(agents=credentials))
    assert [(o.error_code, o.identity.computer_id) for o in identities.outcomes] == [
        ("unauthorized", ""),
        ("", computer.id),
    ]


async def test_a_batch_of_agents_has_a_limit(stub: devices_pb2_grpc.DevicesStub) -> None:
    too_many = [devices_pb2.AuthenticateAgentRequest(agent_credential="pca_x")] * 1001
    await expect_error(
        "invalid_request", stub.AuthenticateAgents, devices_pb2.AuthenticateAgentsRequest(agents=too_many)
    )
    goodbyes = [devices_pb2.AgentDisconnectedRequest(computer_id=str(uuid.uuid4()), gateway_instance="gw")] * 1001
    await expect_error(
        "invalid_request", stub.AgentsDisconnected, devices_pb2.AgentsDisconnectedRequest(agents=goodbyes)
    )
    hellos = [devices_pb2.AgentConnectedRequest(computer_id=str(uuid.uuid4()), gateway_instance="gw")] * 1001
    await expect_error("invalid_request", stub.AgentsConnected, devices_pb2.AgentsConnectedRequest(agents=hellos))
