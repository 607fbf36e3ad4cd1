"""What jobs keeps of the printers it creates jobs for, against PostgreSQL: devices is asked once
for many jobs; a scope's printers are forgotten by `ForgetPrinters` and by devices' events that
change a printer's settings, not by those that change its condition; what one scope keeps is never
served to another; a fill from a read of devices made before a forget never holds; nothing is kept
longer than `KEPT_FOR`, in the database or in a replica's memory; and a replica that keeps a
printer in memory sees another replica's forget."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import delete

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat
from printcloud.jobs.persistence import printer_facts
from printcloud.jobs.persistence.tables import printer_facts as printer_facts_table
from printcloud.jobs.transport.printer_events import PrinterEventsHandler
from printcloud.jobs.use_cases import clock
from printcloud.jobs.use_cases.print_jobs import JobService
from printcloud.jobs.use_cases.printer_facts import KEPT_FOR
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


def _asked(stack: Stack, printer: devices_pb2.Printer) -> int:
    return sum(1 for request in stack.devices.recorder.named("GetPrinter") if request.id == printer.id)


async def _read(stack: Stack, scope: Scope, printer: devices_pb2.Printer) -> printer_facts.Read:
    return await printer_facts.read(stack.db, scope, uuid.UUID(printer.id), datetime.now(UTC) - KEPT_FOR)


async def _kept(stack: Stack, scope: Scope, printer: devices_pb2.Printer) -> bool:
    return (await _read(stack, scope, printer)).printer is not None


async def _refusal(stack: Stack, scope: Scope, printer: devices_pb2.Printer) -> str:
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, printer)
    return caught.value.code


async def test_devices_is_asked_once_for_many_jobs_of_a_printer(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    for _ in range(3):
        await stack.create_job(scope, printer)
    assert _asked(stack, printer) == 1


async def test_a_forgotten_scope_is_asked_again_and_the_create_sees_the_change(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    printer.enabled = False  # changed on devices, and jobs not told
    await stack.create_job(scope, printer)

    await rpc.call(stack.jobs.ForgetPrinters, jobs_pb2.ForgetPrintersRequest(scope=stack.proto_scope(scope)))
    assert await _refusal(stack, scope, printer) == "printer_disabled"
    assert _asked(stack, printer) == 2


async def test_forgetting_one_scope_keeps_the_others(stack: Stack) -> None:
    scope, other = stack.new_scope(), stack.new_scope()
    printer, others = stack.add_printer(scope), stack.add_printer(other)
    await stack.create_job(scope, printer)
    await stack.create_job(other, others)
    await stack.service.forget_printers(scope)
    assert not await _kept(stack, scope, printer)
    assert await _kept(stack, other, others)


async def test_what_one_scope_keeps_is_never_served_to_another(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    assert await _refusal(stack, stack.new_scope(), printer) == "not_found"
    assert await _refusal(stack, Scope(scope.organization_id, "test"), printer) == "mode_mismatch"


async def _fill(stack: Stack, scope: Scope, printer: devices_pb2.Printer, generation: int, at: datetime) -> None:
    await printer_facts.fill(stack.db, scope, uuid.UUID(printer.id), printer.SerializeToString(), generation, at)


async def test_a_fill_from_a_read_made_before_a_forget_does_not_hold(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    read = await _read(stack, scope, printer)
    assert read.printer is None
    await stack.service.forget_printers(scope)  # devices changed it after that read, and said so
    await _fill(stack, scope, printer, read.generation, datetime.now(UTC))
    assert not await _kept(stack, scope, printer)

    read = await _read(stack, scope, printer)
    await _fill(stack, scope, printer, read.generation, datetime.now(UTC))
    assert await _kept(stack, scope, printer)


async def test_a_printer_kept_longer_than_its_time_is_asked_again(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    read = await _read(stack, scope, printer)
    await _fill(stack, scope, printer, read.generation, datetime.now(UTC) - KEPT_FOR - timedelta(seconds=1))
    assert not await _kept(stack, scope, printer)
    await stack.create_job(scope, printer)
    assert _asked(stack, printer) == 1
    assert await _kept(stack, scope, printer)


def _updated(scope: Scope, printer: devices_pb2.Printer, changes: dict[str, Any]) -> Message:
    return Message(
        type="printer.updated",
        organization_id=str(scope.organization_id),
        mode=scope.mode,
        data={
            "id": printer.id,
            "computerId": printer.computer_id,
            "state": "online",
            "stateReasons": [],
            "stateDetail": "",
            "changes": changes,
        },
        timestamp=isoformat(datetime.now(UTC)),
    )


async def test_a_settings_change_announced_by_devices_forgets_and_a_condition_change_does_not(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    handler = PrinterEventsHandler(stack.db)

    await handler.handle_batch([_updated(scope, printer, {"stateReasons": {"from": [], "to": ["media-low"]}})])
    assert await _kept(stack, scope, printer)
    await handler.handle_batch([_updated(scope, printer, {"enabled": {"from": True, "to": False}})])
    assert not await _kept(stack, scope, printer)


async def test_a_replica_creates_from_memory_what_it_read_within_its_time(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    async with stack.db.transaction() as session:  # neither the database nor devices can answer now
        await session.execute(
            delete(printer_facts_table).where(printer_facts_table.c.printer_id == uuid.UUID(printer.id))
        )
    stack.devices.printers.pop(printer.id)

    await stack.create_job(scope, printer)
    assert _asked(stack, printer) == 1


async def test_what_a_replica_keeps_in_memory_is_read_again_after_its_time(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    later = datetime.now(UTC) + KEPT_FOR + timedelta(seconds=1)
    monkeypatch.setattr(clock, "now", lambda: later)

    await stack.create_job(scope, printer)
    assert _asked(stack, printer) == 2


async def test_a_scope_forgotten_through_another_replica_is_read_again_by_one_that_kept_it(stack: Stack) -> None:
    """A replica that keeps a printer in memory learns of a change made through another replica
    from its create's statement, which finds the scope's printers forgotten since it read them."""
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await stack.create_job(scope, printer)
    printer.enabled = False
    other_replica = JobService(stack.db, stack.service.printers)
    await other_replica.forget_printers(scope)

    assert await _refusal(stack, scope, printer) == "printer_disabled"
    assert _asked(stack, printer) == 2
