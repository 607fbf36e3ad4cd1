"""A job waiting on a printer that cannot print says why: the read model fed by devices' printer
events (through a real broker), the note in `stateMessage`, and what clears it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from printcloud.core import rpc
from printcloud.core.db.database import Database
from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.core.kafka.bus import Consumer, Producer
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat
from printcloud.devstack.infrastructure import start_broker
from printcloud.jobs.domain.printer_conditions import (
    PrinterCondition,
    PrinterConditionChange,
    latest_per_printer,
    waiting_note,
)
from printcloud.jobs.persistence import printer_conditions
from printcloud.jobs.transport.printer_events import PrinterEventsHandler, printer_change
from printcloud.jobs.use_cases.printer_conditions import CONSUMER_GROUP
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
OUT_OF_PAPER = "Waiting: the printer reports media-empty (out of paper)"


def test_a_job_in_progress_says_what_stops_its_printer() -> None:
    empty = PrinterCondition("online", ("media-empty", "toner-low"), "The printer reports out of paper, toner low")
    for state in ("queued", "sent", "received", "printing"):
        assert waiting_note(state, empty) == OUT_OF_PAPER
    jammed = PrinterCondition("offline", ("door-open", "media-jam", "paused"), "Jam")
    assert waiting_note("queued", jammed) == (
        "Waiting: the printer reports door-open (a door is open), media-jam (a paper jam), paused"
    )
    away = PrinterCondition("offline", (), "Computer is offline")
    assert waiting_note("queued", away) == "Waiting: the printer is offline (Computer is offline)"


def test_no_note_for_a_finished_job_a_printer_that_prints_or_one_not_heard_of() -> None:
    empty = PrinterCondition("offline", ("media-empty",), "Out of paper")
    for state in ("done", "error", "cancelled", "expired"):
        assert waiting_note(state, empty) is None
    assert waiting_note("queued", PrinterCondition("online", ("toner-low",), "Toner low")) is None
    assert waiting_note("queued", PrinterCondition("online")) is None
    assert waiting_note("queued", PrinterCondition("removed")) is None
    assert waiting_note("queued", None) is None


def change(printer_id: uuid.UUID, at: datetime, state: str, *reasons: str) -> PrinterConditionChange:
    return PrinterConditionChange(
        uuid.uuid4(), Scope(uuid.uuid4(), "live"), printer_id, at, PrinterCondition(state, reasons)
    )


def test_the_last_change_of_each_printer_wins() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    first, second, other = (
        change(a, NOW, "offline"),
        change(a, NOW + timedelta(seconds=1), "online"),
        change(b, NOW, "online"),
    )
    assert latest_per_printer([first, other, second]) == [second, other]
    late = change(a, NOW - timedelta(seconds=1), "offline")
    assert latest_per_printer([second, late]) == [second], "an event older than the one before it changes nothing"


def printer_event(kind: str, scope: Scope, printer_id: str, at: datetime, **data: Any) -> Message:
    return Message(
        type=kind,
        organization_id=str(scope.organization_id),
        mode=scope.mode,
        data={"id": printer_id, "computerId": str(uuid.uuid4()), **data},
        timestamp=isoformat(at),
    )


def condition(state: str, *reasons: str, detail: str = "") -> dict[str, Any]:
    return {"state": state, "stateReasons": list(reasons), "stateDetail": detail}


def test_what_the_consumer_takes_from_each_event() -> None:
    scope, printer = Scope(uuid.uuid4(), "test"), str(uuid.uuid4())
    offline = printer_change(
        printer_event("printer.offline", scope, printer, NOW, **condition("offline", "media-jam-error"))
    )
    assert offline is not None and offline.condition == PrinterCondition("offline", ("media-jam",), "")
    assert offline.scope == scope and offline.at == NOW
    removed = printer_change(printer_event("printer.removed", scope, printer, NOW, name="x"))
    assert removed is not None and removed.condition.state == "removed"
    # A printer.updated of a devices release before printer conditions carried none.
    assert printer_change(printer_event("printer.updated", scope, printer, NOW, changes={})) is None
    assert printer_change(printer_event("printjob.done", scope, printer, NOW)) is None
    assert printer_change(printer_event("printer.online", scope, "not-a-uuid", NOW, **condition("online"))) is None


def test_a_condition_without_reasons_of_an_older_devices_release_is_taken() -> None:
    scope, printer = Scope(uuid.uuid4(), "test"), str(uuid.uuid4())
    before_reasons = printer_event("printer.offline", scope, printer, NOW, state="offline", stateDetail="Paused")
    change = printer_change(before_reasons)
    assert change is not None and change.condition == PrinterCondition("offline", (), "Paused")
    malformed = printer_event("printer.online", scope, printer, NOW, state="online", stateReasons=[], stateDetail=3)
    assert printer_change(malformed) is None


async def test_events_are_taken_once_and_an_older_one_never_overwrites_a_newer(stack: Stack) -> None:
    handler = PrinterEventsHandler(stack.db)
    scope, printer = stack.new_scope(), str(uuid.uuid4())
    newer = printer_event("printer.online", scope, printer, NOW + timedelta(seconds=5), **condition("online"))
    older = printer_event("printer.offline", scope, printer, NOW, **condition("offline", "media-empty"))
    await handler.handle_batch([newer])
    await handler.handle_batch([newer, older])
    assert await printer_conditions.read_one(stack.db, scope, uuid.UUID(printer)) == PrinterCondition("online")
    assert await printer_conditions.read_one(stack.db, stack.new_scope(), uuid.UUID(printer)) is None


async def get_job(stack: Stack, scope: Scope, job_id: str) -> jobs_pb2.PrintJob:
    request = jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job_id)
    job: jobs_pb2.PrintJob = await rpc.call(stack.jobs.GetJob, request)
    return job


async def listed(stack: Stack, scope: Scope) -> dict[str, str | None]:
    request = jobs_pb2.ListJobsRequest(scope=stack.proto_scope(scope))
    page: jobs_pb2.JobPage = await rpc.call(stack.jobs.ListJobs, request)
    return {job.id: job.state_message if job.HasField("state_message") else None for job in page.items}


@pytest.fixture(scope="module")
def kafka() -> Iterator[str]:
    broker = start_broker()
    yield broker.bootstrap
    broker.stop()


@pytest_asyncio.fixture(scope="module")
async def publish(kafka: str, db: Database) -> AsyncIterator[Any]:
    """Sends events to the topic that the jobs consumer (group `jobs`) reads into the read model;
    one consumer for the module, since each group join costs seconds."""
    epoch = await BrokerEpoch.checked(kafka, check_seconds=60)
    handler = PrinterEventsHandler(db)
    consumer = Consumer(kafka, CONSUMER_GROUP, [DOMAIN_EVENTS], handler, epoch, batch_handler=handler.handle_batch)
    await consumer.start()
    task = asyncio.create_task(consumer.run())
    producer = Producer(kafka)
    await producer.start()

    async def send(message: Message) -> None:
        await producer.send_many([(DOMAIN_EVENTS, str(message.data["id"]), message.encode(), {})])

    yield send
    await producer.stop()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await consumer.stop()
    await epoch.close()


async def eventually_message(stack: Stack, scope: Scope, job_id: str, expected: str | None) -> None:
    async with asyncio.timeout(20):
        while True:
            job = await get_job(stack, scope, job_id)
            if (job.state_message if job.HasField("state_message") else None) == expected:
                return
            await asyncio.sleep(0.05)


async def test_a_queued_job_says_why_its_printer_holds_it_until_the_printer_recovers(
    stack: Stack, publish: Any
) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    printer.capabilities_json = '{"duplex": false}'
    other: devices_pb2.Printer = stack.add_printer(scope, name="Other")
    job = await stack.create_job(scope, printer, options_json='{"duplex": "long-edge"}')
    fine = await stack.create_job(scope, other)
    warning = job.state_message  # the option the printer cannot honour, recorded at creation
    assert warning and not fine.HasField("state_message")

    await publish(
        printer_event(
            "printer.updated", scope, printer.id, NOW, **condition("online", "media-empty", "toner-low"), changes={}
        )
    )
    await eventually_message(stack, scope, job.id, f"{warning}; {OUT_OF_PAPER}")
    assert await listed(stack, scope) == {job.id: f"{warning}; {OUT_OF_PAPER}", fine.id: None}

    later = NOW + timedelta(seconds=1)
    await publish(
        printer_event("printer.updated", scope, printer.id, later, **condition("online", "toner-low"), changes={})
    )
    await eventually_message(stack, scope, job.id, warning)
    stored = await stack.state_changes(job.id)
    assert [c.state for c in stored] == ["queued"], "the note never changes the job's state"


async def test_the_note_goes_when_the_job_moves_on(stack: Stack, publish: Any) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    away = condition("offline", detail="Computer is offline")
    await publish(printer_event("printer.offline", scope, printer.id, NOW, **away))
    await eventually_message(stack, scope, job.id, "Waiting: the printer is offline (Computer is offline)")
    cancelled = await rpc.call(stack.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id))
    assert cancelled.state == "cancelled"
    await eventually_message(stack, scope, job.id, None)


async def test_a_malformed_printer_event_is_skipped_not_retried(stack: Stack, publish: Any) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await publish(Message(type="printer.offline", organization_id="nope", mode="live", data={"id": printer.id}))
    await publish(printer_event("printer.offline", scope, printer.id, NOW, **condition("offline", "paused")))
    await eventually_message(stack, scope, job.id, "Waiting: the printer reports paused")
