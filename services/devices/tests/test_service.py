"""The use cases against the real PostgreSQL: scoping, agent lifecycle, printers, events."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import pytest
from sqlalchemy import select, update

from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.db.paging import PageRequest
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.persistence.tables import agent_credentials, computers, printers, processed_messages
from printcloud.devices.use_cases import DeviceUseCases
from printcloud.devices.use_cases.agents import AgentGoodbye, AgentHello

COMPUTER = ReportedComputer(hostname="desk-1", os="linux", os_version="6.1", arch="x86_64", agent_version="0.1.0")


def printer(name: str, **overrides: Any) -> ReportedPrinter:
    values: dict[str, Any] = {
        "name": name,
        "os_name": f"OS {name}",
        "description": "Laser",
        "is_default": False,
        "state": "online",
        "state_detail": "",
        "capabilities": {"papers": {"A4": [2100, 2970]}, "duplex": True},
        "default_options": {"paper": "A4"},
    }
    return ReportedPrinter(**{**values, **overrides})


async def enroll(db: Database, scope: Scope, name: str = "Desk") -> tuple[uuid.UUID, str]:
    computer, credential = await DeviceUseCases.on(db).computers.enroll_computer(scope, name, "desk-1")
    return computer.id, credential


async def connect(db: Database, computer_id: uuid.UUID, reports: list[ReportedPrinter], gateway: str = "gw-a") -> Any:
    return await DeviceUseCases.on(db).agents.agent_connected(AgentHello(computer_id, COMPUTER, reports, gateway))


async def printers_by_name(db: Database, scope: Scope, computer_id: uuid.UUID) -> dict[str, Any]:
    page = await DeviceUseCases.on(db).printers.list_printers(scope, PageRequest(limit=100), computer_id)
    return {p.name: p for p in page.items}


async def expect_error(code: str, call: Any) -> None:
    with pytest.raises(ApiError) as caught:
        await call
    assert caught.value.code == code


async def test_enrolment_creates_an_offline_computer_and_stores_only_the_credential_hash(
    db: Database, scope: Scope
) -> None:
    computer_id, credential = await enroll(db, scope, name="")
    computer = await DeviceUseCases.on(db).computers.get_computer(scope, computer_id)
    async with db.read() as session:
        hashes = (
            await session.scalars(
                select(agent_credentials.c.token_hash).where(agent_credentials.c.computer_id == computer_id)
            )
        ).all()
    assert computer.name == "desk-1", "the name defaults to the hostname"
    assert (computer.state, computer.mode, computer.is_virtual) == ("offline", "live", False)
    assert credential.startswith("pca_")
    assert hashes == [hashlib.sha256(credential.encode()).hexdigest()]


async def test_authentication_accepts_live_credentials_only(db: Database, scope: Scope) -> None:
    devices = DeviceUseCases.on(db)
    computer_id, credential = await enroll(db, scope)
    identity = await devices.credentials.authenticate_agent(credential)
    await expect_error("unauthorized", devices.credentials.authenticate_agent(credential + "x"))
    await expect_error("unauthorized", devices.credentials.authenticate_agent("not-a-credential"))
    assert (identity.computer_id, identity.organization_id, identity.mode, identity.disabled) == (
        computer_id,
        scope.organization_id,
        "live",
        False,
    )

    async with db.transaction() as session:
        await session.execute(
            update(agent_credentials)
            .where(agent_credentials.c.token_hash == hashlib.sha256(credential.encode()).hexdigest())
            .values(revoked_at=utcnow())
        )
    await expect_error("unauthorized", devices.credentials.authenticate_agent(credential))

    other_id, other = await enroll(db, scope)
    assert (await devices.credentials.authenticate_agent(other)).computer_id == other_id
    async with db.transaction() as session:
        await session.execute(update(computers).where(computers.c.id == other_id).values(deleted_at=utcnow()))
    await expect_error("unauthorized", devices.credentials.authenticate_agent(other))


async def test_credentials_in_one_call_each_get_what_a_single_call_answers(db: Database, scope: Scope) -> None:
    devices = DeviceUseCases.on(db)
    first_id, first = await enroll(db, scope, "one")
    second_id, second = await enroll(db, scope, "two")
    deleted_id, deleted = await enroll(db, scope, "gone")
    await devices.computers.delete_computer(scope, deleted_id)
    await devices.computers.update_computer(scope, second_id, None, False)

    answers = await devices.credentials.authenticate_agents([second, "not-a-credential", deleted, first, first + "x"])

    rows = [answer for answer in answers if not isinstance(answer, ApiError)]
    assert [(row.computer_id, row.disabled) for row in rows] == [(second_id, True), (first_id, False)]
    refused = [answer.code for answer in answers if isinstance(answer, ApiError)]
    assert refused == ["unauthorized"] * 3
    assert isinstance(answers[1], ApiError) and isinstance(answers[4], ApiError)


async def test_authentication_reports_a_disabled_computer(db: Database, scope: Scope) -> None:
    computer_id, credential = await enroll(db, scope)
    async with db.transaction() as session:
        await session.execute(update(computers).where(computers.c.id == computer_id).values(disabled=True))
    assert (await DeviceUseCases.on(db).credentials.authenticate_agent(credential)).disabled is True


async def test_rows_of_another_organization_or_mode_are_not_found(db: Database, scope: Scope) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office")])
    printer_id = (await printers_by_name(db, scope, computer_id))["office"].id
    devices = DeviceUseCases.on(db)
    for outsider in (Scope(uuid7(), scope.mode), Scope(scope.organization_id, "test")):
        await expect_error("not_found", devices.computers.get_computer(outsider, computer_id))
        await expect_error("not_found", devices.printers.get_printer(outsider, printer_id))
        await expect_error(
            "not_found", devices.printers.list_printers(outsider, PageRequest(), computer_id=computer_id)
        )
        assert (await devices.computers.list_computers(outsider, PageRequest())).items == []
        assert (await devices.printers.list_printers(outsider, PageRequest())).items == []


async def test_lists_page_by_id_in_both_directions(db: Database, scope: Scope) -> None:
    ids = [(await enroll(db, scope, name=f"c{i}"))[0] for i in range(3)]
    devices = DeviceUseCases.on(db)
    first = await devices.computers.list_computers(scope, PageRequest(limit=2, dir="asc"))
    assert [c.id for c in first.items] == ids[:2] and first.has_more
    rest = await devices.computers.list_computers(
        scope, PageRequest(limit=2, after=uuid.UUID(first.next_cursor), dir="asc")
    )
    assert [c.id for c in rest.items] == ids[2:] and not rest.has_more
    newest = await devices.computers.list_computers(scope, PageRequest(limit=1))
    assert [c.id for c in newest.items] == [ids[2]]


async def test_connecting_brings_the_computer_and_its_printers_online(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    computer = await connect(db, computer_id, [printer("office", is_default=True), printer("label", state="offline")])
    assert (computer.state, computer.hostname, computer.os, computer.gateway_instance) == (
        "online",
        "desk-1",
        "linux",
        "gw-a",
    )
    assert computer.last_seen_at is not None
    online = ("computer.online", {"id": str(computer_id), "name": "Desk", "state": "online"})
    assert await events_of(computer_id) == [online]

    found = await printers_by_name(db, scope, computer_id)
    office, label = found["office"], found["label"]
    assert (office.display_name, office.enabled, office.is_default, office.state) == ("OS office", True, True, "online")
    assert (office.default_options, office.custom_papers, office.remarks) == ({"paper": "A4"}, [], None)
    assert (label.state, label.state_detail) == ("offline", "Spooler reports the printer stopped or unreachable")
    assert office.computer_os == "linux"
    assert await events_of(office.id) == [
        (
            "printer.added",
            {
                "id": str(office.id),
                "computerId": str(computer_id),
                "name": "office",
                "displayName": "OS office",
                "state": "online",
                "stateReasons": [],
                "stateDetail": "",
            },
        )
    ]

    await connect(db, computer_id, [printer("office", is_default=True), printer("label", state="offline")], "gw-b")
    assert len(await events_of(computer_id)) == 1, "reconnecting while online is not a state change"
    assert len(await events_of(office.id)) == 1, "an unchanged report emits nothing"


async def test_reports_update_facts_but_never_user_settings(db: Database, scope: Scope, events_of: Any) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office")])
    office = (await printers_by_name(db, scope, computer_id))["office"]
    async with db.transaction() as session:
        await session.execute(
            update(printers)
            .where(printers.c.id == office.id)
            .values(display_name="Front desk", enabled=False, default_options={"paper": "Letter"})
        )

    await DeviceUseCases.on(db).agents.report_printers(
        computer_id, [printer("office", os_name="Renamed", description="Inkjet", default_options={})]
    )
    after = (await printers_by_name(db, scope, computer_id))["office"]
    assert (after.os_name, after.description) == ("Renamed", "Inkjet")
    assert (after.display_name, after.enabled, after.default_options) == ("Front desk", False, {"paper": "Letter"})
    assert after.updated_at > office.updated_at
    assert (await events_of(office.id))[-1] == (
        "printer.updated",
        {
            "id": str(office.id),
            "computerId": str(computer_id),
            "state": "online",
            "stateReasons": [],
            "stateDetail": "",
            "changes": {
                "osName": {"from": "OS office", "to": "Renamed"},
                "description": {"from": "Laser", "to": "Inkjet"},
            },
        },
    )


async def test_spooler_state_changes_emit_printer_online_and_offline(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office")])
    office_id = (await printers_by_name(db, scope, computer_id))["office"].id
    devices = DeviceUseCases.on(db)
    await devices.agents.report_printers(computer_id, [printer("office", state="offline", state_detail="Jam")])
    listed = await devices.agents.report_printers(computer_id, [printer("office")])
    assert [(p.name, p.state) for p in listed] == [("office", "online")]
    assert [(t, d["state"], d["stateDetail"]) for t, d in (await events_of(office_id))[1:]] == [
        ("printer.offline", "offline", "Jam"),
        ("printer.online", "online", ""),
    ]


async def test_state_reasons_are_kept_normalised_and_announced_with_the_condition(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office")])
    office_id = (await printers_by_name(db, scope, computer_id))["office"].id
    devices = DeviceUseCases.on(db)
    low = printer("office", state_detail="The printer reports toner low", state_reasons=["toner-low-warning"])
    await devices.agents.report_printers(computer_id, [low])
    empty = printer(
        "office",
        state="offline",
        state_detail="The printer reports out of paper",
        state_reasons=["toner-low-report", "media-empty-error", "none"],
    )
    listed = await devices.agents.report_printers(computer_id, [empty])
    assert [(p.state, p.state_reasons) for p in listed] == [("offline", ["media-empty", "toner-low"])]
    await devices.agents.report_printers(computer_id, [empty])
    await devices.agents.agent_disconnected(computer_id, "gw-a")
    assert (await devices.printers.get_printer(scope, office_id)).state_reasons == []
    assert (await events_of(office_id))[1:] == [
        (
            "printer.updated",
            {
                "id": str(office_id),
                "computerId": str(computer_id),
                "state": "online",
                "stateReasons": ["toner-low"],
                "stateDetail": "The printer reports toner low",
                "changes": {
                    "stateReasons": {"from": [], "to": ["toner-low"]},
                    "stateDetail": {"from": "", "to": "The printer reports toner low"},
                },
            },
        ),
        (
            "printer.offline",
            {
                "id": str(office_id),
                "computerId": str(computer_id),
                "state": "offline",
                "stateReasons": ["media-empty", "toner-low"],
                "stateDetail": "The printer reports out of paper",
            },
        ),
        (
            "printer.updated",
            {
                "id": str(office_id),
                "computerId": str(computer_id),
                "state": "offline",
                "stateReasons": [],
                "stateDetail": "Computer is offline",
                "changes": {
                    "stateReasons": {"from": ["media-empty", "toner-low"], "to": []},
                    "stateDetail": {"from": "The printer reports out of paper", "to": "Computer is offline"},
                },
            },
        ),
    ]


async def test_a_printer_no_longer_reported_is_removed_and_revived_when_it_returns(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office"), printer("label")])
    label_id = (await printers_by_name(db, scope, computer_id))["label"].id

    devices = DeviceUseCases.on(db)
    listed = await devices.agents.report_printers(computer_id, [printer("office")])
    assert [p.name for p in listed] == ["office"]
    await expect_error("not_found", devices.printers.get_printer(scope, label_id))
    assert (await events_of(label_id))[-1] == (
        "printer.removed",
        {"id": str(label_id), "computerId": str(computer_id), "name": "label"},
    )

    await devices.agents.report_printers(computer_id, [printer("office"), printer("label")])
    assert (await devices.printers.get_printer(scope, label_id)).name == "label"
    assert (await events_of(label_id))[-1][0] == "printer.added"


async def test_disconnect_from_the_holding_replica_takes_everything_offline(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    await connect(db, computer_id, [printer("office")], gateway="gw-a")
    await connect(db, computer_id, [printer("office")], gateway="gw-b")
    office_id = (await printers_by_name(db, scope, computer_id))["office"].id

    devices = DeviceUseCases.on(db)
    assert not await devices.agents.agent_disconnected(computer_id, "gw-a")
    assert (await devices.computers.get_computer(scope, computer_id)).state == "online"

    assert await devices.agents.agent_disconnected(computer_id, "gw-b")
    computer = await devices.computers.get_computer(scope, computer_id)
    office = await devices.printers.get_printer(scope, office_id)
    assert (computer.state, computer.gateway_instance) == ("offline", None)
    assert (office.state, office.state_detail) == ("offline", "Computer is offline")
    assert [t for t, _ in await events_of(computer_id)] == ["computer.online", "computer.offline"]
    assert (await events_of(office_id))[-1] == (
        "printer.offline",
        {
            "id": str(office_id),
            "computerId": str(computer_id),
            "state": "offline",
            "stateReasons": [],
            "stateDetail": "Computer is offline",
        },
    )

    assert not await devices.agents.agent_disconnected(computer_id, "gw-b"), "a repeat is a no-op"
    assert len(await events_of(computer_id)) == 2


async def test_a_disabled_computer_stays_disabled_when_its_agent_connects(
    db: Database, scope: Scope, events_of: Any
) -> None:
    computer_id, _ = await enroll(db, scope)
    async with db.transaction() as session:
        await session.execute(update(computers).where(computers.c.id == computer_id).values(disabled=True))
    computer = await connect(db, computer_id, [printer("office")])
    office = (await printers_by_name(db, scope, computer_id))["office"]
    assert computer.state == "disabled"
    assert (office.state, office.state_detail) == ("offline", "Computer is disabled")
    assert await events_of(computer_id) == []


async def test_agent_calls_for_unknown_computers_are_not_found(db: Database) -> None:
    missing = uuid7()
    devices = DeviceUseCases.on(db)
    await expect_error("not_found", devices.agents.report_printers(missing, []))
    await expect_error("not_found", devices.virtual_computers.issue_virtual_agent_credential(missing))


async def test_agents_seen_records_the_time_of_each_and_skips_unknown_ones(db: Database, scope: Scope) -> None:
    first, _ = await enroll(db, scope)
    second, _ = await enroll(db, scope)
    unseen, _ = await enroll(db, scope)
    devices = DeviceUseCases.on(db)
    await devices.agents.agents_seen([first, uuid7(), second])
    seen = [(await devices.computers.get_computer(scope, c)).last_seen_at for c in (first, second, unseen)]
    assert seen[0] is not None and seen[0] == seen[1] and seen[2] is None


async def test_the_virtual_computer_is_created_once_with_its_printers_listed(db: Database, events_of: Any) -> None:
    organization_id = uuid7()
    test_scope = Scope(organization_id, "test")
    devices = DeviceUseCases.on(db)

    async def ensure() -> uuid.UUID:
        computer_id: uuid.UUID = (await devices.virtual_computers.ensure_virtual_computer(organization_id)).id
        return computer_id

    # Concurrent creations race on the unique index; both must end with the same computer.
    first, second = await asyncio.gather(ensure(), ensure())
    assert first == second == await ensure()

    computer = await devices.computers.get_computer(test_scope, first)
    listed = await devices.printers.list_printers(test_scope, PageRequest(dir="asc"), computer_id=first)
    everywhere = await devices.virtual_computers.list_virtual_computers()
    await expect_error("not_found", devices.computers.get_computer(Scope(organization_id, "live"), first))
    assert (computer.name, computer.is_virtual, computer.state, computer.hostname, computer.mode) == (
        "Virtual computer",
        True,
        "offline",
        "virtual-computer",
        "test",
    )
    assert [p.name for p in listed.items] == ["virtual-office", "virtual-label", "virtual-windows", "virtual-photo"]
    assert all(p.state == "offline" and p.enabled for p in listed.items)
    assert [c.id for c in everywhere if c.organization_id == organization_id] == [first]
    assert [t for t, _ in await events_of(listed.items[0].id)] == ["printer.added"]

    credential = await devices.virtual_computers.issue_virtual_agent_credential(first)
    assert (await devices.credentials.authenticate_agent(credential)).mode == "test"
    replacement = await devices.virtual_computers.issue_virtual_agent_credential(first)
    await expect_error("unauthorized", devices.credentials.authenticate_agent(credential))
    assert (await devices.credentials.authenticate_agent(replacement)).computer_id == first


async def test_a_computer_that_is_not_virtual_gets_no_credential_from_the_fleets_use_case(
    db: Database, scope: Scope
) -> None:
    computer_id, credential = await enroll(db, scope)
    devices = DeviceUseCases.on(db)
    await expect_error("forbidden", devices.virtual_computers.issue_virtual_agent_credential(computer_id))
    async with db.read() as session:
        stored = (
            await session.scalars(
                select(agent_credentials.c.revoked_at).where(agent_credentials.c.computer_id == computer_id)
            )
        ).all()
    assert stored == [None], "its one credential is neither revoked nor joined by another"
    assert (await devices.credentials.authenticate_agent(credential)).computer_id == computer_id


async def test_message_processing_is_recorded_once(db: Database) -> None:
    message_id = uuid7()
    async with db.transaction() as session:
        assert await processed_messages.mark(session, "devices", message_id)
    async with db.transaction() as session:
        assert not await processed_messages.mark(session, "devices", message_id)
        assert await processed_messages.mark(session, "another-consumer", message_id)


# --- many agents in one call ---------------------------------------------------------------


def hello(computer_id: uuid.UUID, gateway: str = "gw-a", printers: tuple[str, ...] = ("office",)) -> AgentHello:
    return AgentHello(computer_id, COMPUTER, [printer(name) for name in printers], gateway)


async def test_a_batch_connects_each_agent_as_a_single_call_would(db: Database, scope: Scope, events_of: Any) -> None:
    devices = DeviceUseCases.on(db)
    first, _ = await enroll(db, scope, "one")
    second, _ = await enroll(db, scope, "two")
    deleted, _ = await enroll(db, scope, "gone")
    await devices.computers.delete_computer(scope, deleted)

    answers = await devices.agents.agents_connected(
        [hello(first), hello(deleted), hello(second, "gw-b", ("office", "label"))]
    )

    assert isinstance(answers[1], ApiError) and answers[1].code == "not_found", "refused alone"
    connected = [answer for answer in answers if isinstance(answer, ComputerRow)]
    assert [(c.id, c.state, c.gateway_instance) for c in connected] == [
        (first, "online", "gw-a"),
        (second, "online", "gw-b"),
    ]
    assert sorted(await printers_by_name(db, scope, second)) == ["label", "office"]
    for computer_id in (first, second):
        assert [t for t, _ in await events_of(computer_id)] == ["computer.online"]
        assert (await devices.computers.get_computer(scope, computer_id)).hostname == COMPUTER.hostname


async def test_a_computer_twice_in_a_batch_sees_its_first_connection(
    db: Database, scope: Scope, events_of: Any
) -> None:
    devices = DeviceUseCases.on(db)
    computer_id, _ = await enroll(db, scope)

    answers = await devices.agents.agents_connected([hello(computer_id, "gw-a"), hello(computer_id, "gw-b")])

    assert [a.gateway_instance for a in answers if isinstance(a, ComputerRow)] == ["gw-a", "gw-b"]
    assert (await devices.computers.get_computer(scope, computer_id)).gateway_instance == "gw-b"
    assert [t for t, _ in await events_of(computer_id)] == ["computer.online"], "online once, not twice"


async def test_a_computer_twice_in_a_batch_reconciles_its_printers_one_report_after_the_other(
    db: Database, scope: Scope, events_of: Any
) -> None:
    devices = DeviceUseCases.on(db)
    computer_id, _ = await enroll(db, scope)

    await devices.agents.agents_connected(
        [hello(computer_id, "gw-a", ("office", "label")), hello(computer_id, "gw-b", ("office",))]
    )

    assert sorted(await printers_by_name(db, scope, computer_id)) == ["office"]
    async with db.read() as session:
        label = (
            await session.execute(
                select(printers).where(printers.c.computer_id == computer_id, printers.c.name == "label")
            )
        ).one()
    assert label.removed_at is not None
    assert [t for t, _ in await events_of(label.id)] == ["printer.added", "printer.removed"]


async def test_a_batch_settles_each_computers_printers_with_its_own_changes(
    db: Database, scope: Scope, events_of: Any
) -> None:
    """One batch of goodbyes and one of hellos over computers whose printers differ: each
    computer's printers move with it, and only they."""
    devices = DeviceUseCases.on(db)
    ids = [(await enroll(db, scope, f"pc-{n}"))[0] for n in range(3)]
    reports = [("office",), ("office", "label"), ()]
    await devices.agents.agents_connected([hello(c, "gw-a", r) for c, r in zip(ids, reports, strict=True)])

    assert await devices.agents.agents_disconnected([AgentGoodbye(c, "gw-a") for c in ids]) == [True] * 3
    for computer_id, report in zip(ids, reports, strict=True):
        listed = await printers_by_name(db, scope, computer_id)
        assert sorted(listed) == sorted(report)
        assert {(p.state, p.state_detail) for p in listed.values()} <= {("offline", "Computer is offline")}

    await devices.agents.agents_connected([hello(ids[0], "gw-b", ("office", "label")), hello(ids[1], "gw-b", ())])
    assert sorted(await printers_by_name(db, scope, ids[0])) == ["label", "office"]
    assert await printers_by_name(db, scope, ids[1]) == {}
    office = (await printers_by_name(db, scope, ids[0]))["office"]
    assert [t for t, _ in await events_of(office.id)] == ["printer.added", "printer.offline", "printer.online"]
    assert [t for t, _ in await events_of(ids[2])] == ["computer.online", "computer.offline"]


async def test_a_batch_gives_each_printer_its_own_report(db: Database, scope: Scope) -> None:
    """A batch of hellos writes its printers' changes together, sent by shape: each printer must
    still get what its own agent reported, and only that, whatever the others reported."""
    devices = DeviceUseCases.on(db)
    ids = [(await enroll(db, scope, f"pc-{n}"))[0] for n in range(4)]
    await devices.agents.agents_connected([hello(c, "gw-a") for c in ids])
    await devices.agents.agents_disconnected([AgentGoodbye(c, "gw-a") for c in ids])
    reports = [
        printer("office", description="Colour laser"),
        printer("office", description="Colour laser"),
        printer("office", state="offline", state_detail="Out of paper", state_reasons=["media-empty-error"]),
        printer("office"),
    ]

    await devices.agents.agents_connected(
        [AgentHello(c, COMPUTER, [report], "gw-b") for c, report in zip(ids, reports, strict=True)]
    )

    office = [(await printers_by_name(db, scope, c))["office"] for c in ids]
    assert [(p.description, p.state, p.state_reasons) for p in office] == [
        ("Colour laser", "online", []),
        ("Colour laser", "online", []),
        ("Laser", "offline", ["media-empty"]),
        ("Laser", "online", []),
    ]


async def test_a_batch_disconnects_only_what_each_replica_holds(db: Database, scope: Scope, events_of: Any) -> None:
    devices = DeviceUseCases.on(db)
    held_here, _ = await enroll(db, scope, "here")
    held_elsewhere, _ = await enroll(db, scope, "elsewhere")
    deleted, _ = await enroll(db, scope, "gone")
    await devices.agents.agents_connected([hello(held_here, "gw-a"), hello(held_elsewhere, "gw-b"), hello(deleted)])
    await devices.computers.delete_computer(scope, deleted)

    answers = await devices.agents.agents_disconnected(
        [AgentGoodbye(held_here, "gw-a"), AgentGoodbye(held_elsewhere, "gw-a"), AgentGoodbye(deleted, "gw-a")]
    )

    assert answers[:2] == [True, False]
    assert isinstance(answers[2], ApiError) and answers[2].code == "not_found"
    assert (await devices.computers.get_computer(scope, held_here)).state == "offline"
    assert (await devices.computers.get_computer(scope, held_elsewhere)).state == "online"
    office = (await printers_by_name(db, scope, held_here))["office"]
    assert (office.state, office.state_detail) == ("offline", "Computer is offline")
    assert [t for t, _ in await events_of(held_here)] == ["computer.online", "computer.offline"]


async def test_batches_that_share_computers_in_opposite_orders_all_apply(db: Database, scope: Scope) -> None:
    """Each batch locks its computers in id order before writing: without it, two batches that hold
    one computer each and wait for the other's are a deadlock, and one of them fails."""
    devices = DeviceUseCases.on(db)
    ids = [(await enroll(db, scope, f"pc-{n}"))[0] for n in range(6)]
    batches = [[hello(c, f"gw-{n}") for c in (ids if n % 2 else ids[::-1])] for n in range(6)]

    answers = await asyncio.gather(*(devices.agents.agents_connected(batch) for batch in batches))

    assert all(isinstance(a, ComputerRow) for batch in answers for a in batch)
    final = {(await devices.computers.get_computer(scope, c)).gateway_instance for c in ids}
    assert final <= {f"gw-{n}" for n in range(6)}
