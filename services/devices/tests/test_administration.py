"""PATCH/DELETE of computers and printers, and the sweep of silent agent-gateway replicas,
against the real PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.printer_settings import PrinterSettings
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.tables import outbox
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.devices.use_cases.agents import AgentHello

COMPUTER = ReportedComputer(hostname="desk-1", os="linux", os_version="6.1", arch="x86_64", agent_version="0.1.0")
OFFICE = ReportedPrinter(
    name="office", os_name="Office", description="Laser", is_default=True, state="online", state_detail="",
    capabilities={"papers": {"A4": [2100, 2970]}}, default_options={},
)  # fmt: skip


async def connected_computer(db: Database, scope: Scope, gateway: str = "gw-a") -> tuple[uuid.UUID, str]:
    devices = DeviceUseCases.on(db)
    computer, credential = await devices.computers.enroll_computer(scope, "Desk", "desk-1")
    await devices.agents.agent_connected(AgentHello(computer.id, COMPUTER, [OFFICE], gateway))
    return computer.id, credential


async def office_printer(db: Database, scope: Scope, computer_id: uuid.UUID) -> Any:
    page = await DeviceUseCases.on(db).printers.list_printers(scope, PageRequest(limit=10), computer_id)
    return page.items[0]


async def commands_for(db: Database, computer_id: uuid.UUID) -> list[str]:
    async with db.read() as session:
        rows = await session.execute(
            select(outbox.table.c.payload)
            .where(outbox.table.c.key == str(computer_id), outbox.table.c.topic == "printcloud.agent-commands")
            .order_by(outbox.table.c.id)
        )
    return [r.payload["type"] for r in rows]


async def test_disable_takes_the_computer_off_and_disconnects_it_until_re_enabled(
    db: Database, scope: Scope, events_of: Any
) -> None:
    devices = DeviceUseCases.on(db)
    computer_id, credential = await connected_computer(db, scope)
    disabled = await devices.computers.update_computer(scope, computer_id, "Front desk", False)
    assert (disabled.name, disabled.state, disabled.disabled, disabled.gateway_instance) == (
        "Front desk", "disabled", True, None,
    )  # fmt: skip
    assert await commands_for(db, computer_id) == ["computer.disconnect"]
    printer = await office_printer(db, scope, computer_id)
    assert (printer.state, printer.state_detail) == ("offline", "Computer is disabled")
    assert (await devices.credentials.authenticate_agent(credential)).disabled is True
    enabled = await devices.computers.update_computer(scope, computer_id, None, True)
    assert (enabled.state, enabled.disabled) == ("offline", False)
    types = [t for t, _ in await events_of(computer_id)]
    assert types == ["computer.online", "computer.offline"]
    assert (await events_of(computer_id))[-1][1]["state"] == "disabled"


async def test_delete_hides_the_computer_and_printers_and_revokes_credentials(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, credential = await connected_computer(db, scope)
    printer = await office_printer(db, scope, computer_id)
    devices = DeviceUseCases.on(db)
    await devices.computers.delete_computer(scope, computer_id)
    for call in (
        devices.computers.get_computer(scope, computer_id),
        devices.printers.get_printer(scope, printer.id),
        devices.credentials.authenticate_agent(credential),
    ):
        with pytest.raises(ApiError):
            await call
    assert await commands_for(db, computer_id) == ["computer.disconnect"]
    assert [t for t, _ in await events_of(printer.id)][-1] == "printer.removed"


async def test_the_virtual_computer_cannot_be_deleted(db: Database) -> None:
    organization_id = uuid.uuid4()
    devices = DeviceUseCases.on(db)
    virtual = await devices.virtual_computers.ensure_virtual_computer(organization_id)
    with pytest.raises(ApiError) as refused:
        await devices.computers.delete_computer(Scope(organization_id, "test"), virtual.id)
    assert refused.value.code == "conflict"


async def test_printer_settings_change_and_announce_only_real_changes(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await connected_computer(db, scope)
    printer = await office_printer(db, scope, computer_id)
    settings = PrinterSettings(
        display_name="Front", default_options={"copies": 2}, custom_papers=[{"name": "L", "width": 1, "height": 2}]
    )
    devices = DeviceUseCases.on(db)
    updated = await devices.printers.update_printer(scope, printer.id, settings)
    again = await devices.printers.update_printer(scope, printer.id, settings)
    assert (updated.display_name, updated.default_options, updated.custom_papers) == (
        "Front", {"copies": 2}, [{"name": "L", "width": 1, "height": 2}],
    )  # fmt: skip
    assert again.updated_at == updated.updated_at
    updates = [data for t, data in await events_of(printer.id) if t == "printer.updated"]
    assert updates == [
        {
            "id": str(printer.id),
            "computerId": str(computer_id),
            "state": "online",
            "stateReasons": [],
            "stateDetail": "",
            "changes": {
                "displayName": {"from": "Office", "to": "Front"},
                "defaultOptions": {"from": {}, "to": {"copies": 2}},
                "customPapers": {"from": [], "to": [{"name": "L", "width": 1, "height": 2}]},
            },
        }
    ]
    with pytest.raises(ApiError):
        await devices.printers.update_printer(Scope(uuid.uuid4(), "live"), printer.id, settings)


async def test_the_sweep_takes_offline_the_computers_of_a_silent_replica(
    db: Database, scope: Scope, events_of: Any
) -> None:
    devices = DeviceUseCases.on(db)
    now = utcnow()
    async with db.transaction() as session:
        # A heartbeat a minute old, written directly: the use case always records the present.
        assert await repository.record_gateway_heartbeat(session, "gw-silent", now - timedelta(seconds=60)) is False
    assert await devices.gateways.record_gateway_heartbeat("gw-alive") is False
    silent, _ = await connected_computer(db, scope, "gw-silent")
    alive, _ = await connected_computer(db, scope, "gw-alive")
    assert await devices.gateways.sweep_silent_gateways(utcnow(), timedelta(seconds=30)) >= 1
    assert (await devices.computers.get_computer(scope, silent)).state == "offline"
    assert (await devices.computers.get_computer(scope, alive)).state == "online"
    office = await office_printer(db, scope, silent)
    assert office.state == "offline"
    assert [t for t, _ in await events_of(silent)] == ["computer.online", "computer.offline"]
    assert [t for t, _ in await events_of(office.id)] == ["printer.added", "printer.offline"]
    # The swept replica is forgotten: when it heartbeats again it learns it was presumed dead.
    assert await devices.gateways.record_gateway_heartbeat("gw-silent") is False
    assert await devices.gateways.record_gateway_heartbeat("gw-alive") is True
