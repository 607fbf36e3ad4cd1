"""The agent-facing calls: sending, state reports, delivery, file download and pending jobs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from typing import TYPE_CHECKING, Any, Literal

import pytest
from sqlalchemy import literal_column, select, text

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.compiled_reads import CompiledRead
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.core.scope import Scope
from printcloud.jobs.persistence import repository
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

# The `PrintJob` field a state sets when the job enters it.
Stamp = Literal["sent_at", "received_at", "printing_at", "finished_at"]


async def _sent_job(stack: Stack, **fields: Any) -> tuple[devices_pb2.Printer, jobs_pb2.PrintJob]:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer, **fields)
    assert (await claim(stack, printer.computer_id, job.id)).claimed
    return printer, job


async def claim(
    stack: Stack, computer_id: str, job_id: str, resend_of: int | None = None, content_up_to: int = 0
) -> jobs_pb2.ClaimDeliveryResponse:
    request = jobs_pb2.ClaimDeliveryRequest(
        computer_id=computer_id, job_id=job_id, resend_of=resend_of, content_up_to=content_up_to
    )
    return await rpc.call(stack.jobs.ClaimDelivery, request)


async def get_job(stack: Stack, scope: Scope, job_id: str) -> jobs_pb2.PrintJob:
    return await rpc.call(stack.jobs.GetJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job_id))


async def report(
    stack: Stack, computer_id: str, job_id: str, state: str, message: str | None = None
) -> jobs_pb2.PrintJob:
    request = jobs_pb2.ReportJobStateRequest(computer_id=computer_id, job_id=job_id, state=state, message=message)
    return await rpc.call(stack.jobs.ReportJobState, request)


async def read_file(stack: Stack, computer_id: str, job_id: str) -> list[bytes]:
    request = jobs_pb2.AgentJobRequest(computer_id=computer_id, job_id=job_id)
    return [chunk.data async for chunk in rpc.stream(stack.jobs.ReadJobFile, request)]


async def test_job_walks_to_done_recording_each_change_once(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    computer = printer.computer_id

    assert (await claim(stack, computer, job.id)).claimed
    steps: list[tuple[jobs_pb2.PrintJob, str, str, Stamp]] = [
        (await get_job(stack, scope, job.id), "sent", "system", "sent_at"),
        (await report(stack, computer, job.id, "received"), "received", "agent", "received_at"),
        (await report(stack, computer, job.id, "printing"), "printing", "agent", "printing_at"),
        (await report(stack, computer, job.id, "done"), "done", "agent", "finished_at"),
    ]

    changes = await stack.state_changes(job.id)
    rows = await stack.outbox_rows(job.id)
    events = [r for r in rows if r.topic == DOMAIN_EVENTS]
    assert len(rows) == 2 + len(steps), "one outbox row per change after the queued event and the deliver command"
    assert [(c.state, c.actor) for c in changes] == [("queued", "api")] + [(s, a) for _, s, a, _ in steps]
    assert [e.payload["type"] for e in events] == [
        f"printjob.{s}" for s in ("queued", "sent", "received", "printing", "done")
    ]
    for (returned, state, _, stamp), event in zip(steps, events[1:], strict=True):
        assert returned.state == state
        assert returned.HasField(stamp)
        assert event.payload["data"] == representations.print_job(returned)
        assert event.key == job.id
    assert all(e.payload["organizationId"] == str(scope.organization_id) for e in events)


async def test_a_resend_is_claimed_once_per_send_count_and_records_nothing(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    before_changes, before_rows = await stack.state_changes(job.id), await stack.outbox_rows(job.id)

    resent = await claim(stack, printer.computer_id, job.id, resend_of=1)
    duplicate = await claim(stack, printer.computer_id, job.id, resend_of=1)

    assert resent.claimed and resent.delivery.state == "sent"
    assert not duplicate.claimed, "the same resend command delivered twice sends the job once"
    assert await stack.send_count(job.id) == 2
    assert await stack.state_changes(job.id) == before_changes
    assert await stack.outbox_rows(job.id) == before_rows


async def test_repeated_report_is_a_no_op(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    first = await report(stack, printer.computer_id, job.id, "received")
    rows = await stack.outbox_rows(job.id)

    repeated = await report(stack, printer.computer_id, job.id, "received")

    assert repeated == first
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "sent", "received"]
    assert await stack.outbox_rows(job.id) == rows


async def test_error_report_keeps_the_reason(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    failed = await report(stack, printer.computer_id, job.id, "error", "printer jammed")

    assert (failed.state, failed.state_message) == ("error", "printer jammed")
    assert failed.HasField("finished_at")
    last = (await stack.state_changes(job.id))[-1]
    assert (last.state, last.actor, last.message) == ("error", "agent", "printer jammed")


@pytest.mark.parametrize(
    ("walk", "refused"),
    [
        ([], "printing"),
        ([], "done"),
        (["received", "printing", "done"], "printing"),
        (["error"], "received"),
    ],
)
async def test_invalid_transition_is_a_conflict_and_records_nothing(
    stack: Stack, walk: list[str], refused: str
) -> None:
    printer, job = await _sent_job(stack)
    for state in walk:
        await report(stack, printer.computer_id, job.id, state)
    changes, rows = await stack.state_changes(job.id), await stack.outbox_rows(job.id)

    with pytest.raises(ApiError) as caught:
        await report(stack, printer.computer_id, job.id, refused)

    assert caught.value.code == "conflict"
    assert await stack.state_changes(job.id) == changes
    assert await stack.outbox_rows(job.id) == rows


@pytest.mark.parametrize("state", ["sent", "queued", "cancelled", "expired", "lost"])
async def test_agents_report_only_their_own_states(stack: Stack, state: str) -> None:
    printer, job = await _sent_job(stack)
    with pytest.raises(ApiError) as caught:
        await report(stack, printer.computer_id, job.id, state)
    assert caught.value.code == "invalid_request"


@pytest.mark.parametrize("resend_of", [None, 1])
async def test_a_job_with_its_agent_is_not_claimed_again(stack: Stack, resend_of: int | None) -> None:
    printer, job = await _sent_job(stack)
    await report(stack, printer.computer_id, job.id, "received")

    again = await claim(stack, printer.computer_id, job.id, resend_of)

    assert not again.claimed and again.delivery.state == "received"
    assert await stack.send_count(job.id) == 1


async def test_concurrent_reports_of_one_job_serialize(stack: Stack) -> None:
    printer, job = await _sent_job(stack)

    results = await asyncio.gather(*(report(stack, printer.computer_id, job.id, "received") for _ in range(8)))

    assert {r.state for r in results} == {"received"}
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "sent", "received"]
    events = [r.payload["type"] for r in await stack.outbox_rows(job.id) if r.topic == DOMAIN_EVENTS]
    assert events.count("printjob.received") == 1


async def test_of_concurrent_pushes_of_one_job_exactly_one_is_claimed(stack: Stack) -> None:
    """A reconnect's pending delivery and a `job.deliver` command racing: one push, one change."""
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)

    claims = await asyncio.gather(*(claim(stack, printer.computer_id, job.id) for _ in range(5)))

    assert [c.claimed for c in claims].count(True) == 1
    assert await stack.send_count(job.id) == 1
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "sent"]


async def test_another_computer_cannot_touch_the_job(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    stranger = stack.add_printer(scope).computer_id

    calls = [
        claim(stack, stranger, job.id),
        report(stack, stranger, job.id, "error", "not mine"),
        read_file(stack, stranger, job.id),
        claim(stack, "nope", job.id),
    ]
    for call in calls:
        with pytest.raises(ApiError) as caught:
            await call
        assert caught.value.code == "not_found"
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued"]


async def test_delivery_describes_the_job_for_the_agent(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope, name="Label_Printer", default_options={"color": False})
    job = await stack.create_job(scope, printer, qty=3, options_json='{"copies": 2}')

    delivery = (await claim(stack, printer.computer_id, job.id)).delivery

    assert (delivery.job_id, delivery.computer_id, delivery.printer_id) == (job.id, printer.computer_id, printer.id)
    assert (delivery.printer_name, delivery.title, delivery.content_type, delivery.qty) == (
        "Label_Printer",
        job.title,
        "pdf_base64",
        3,
    )
    assert json.loads(delivery.options_json) == {"copies": 2, "color": False}
    assert (delivery.file_sha256, delivery.file_size, delivery.state) == (job.file_sha256, job.file_size, "sent")


@pytest.mark.parametrize(("size", "up_to", "carried"), [(100, 100, True), (101, 100, False), (100, 0, False)])
async def test_a_delivery_carries_a_file_no_larger_than_the_claim_asks(
    stack: Stack, size: int, up_to: int, carried: bool
) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    data = b"%PDF-" + b"x" * (size - 5)
    job = await stack.create_job(scope, printer, data=data)

    delivery = (await claim(stack, printer.computer_id, job.id, content_up_to=up_to)).delivery

    assert delivery.HasField("content") is carried
    if carried:
        assert delivery.content == data


async def test_a_push_that_loses_the_claim_carries_no_file(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer, data=b"%PDF-1.7 small")
    assert (await claim(stack, printer.computer_id, job.id, content_up_to=1000)).claimed

    again = await claim(stack, printer.computer_id, job.id, content_up_to=1000)

    assert not again.claimed
    assert not again.delivery.HasField("content")


async def test_file_streams_in_mebibyte_chunks_while_with_the_agent(stack: Stack) -> None:
    content = b"%PDF-" + bytes(range(256)) * (10 * 1024 + 7)  # about 2.5 MiB, not a multiple of the chunk
    printer, job = await _sent_job(stack, data=content)

    chunks = await read_file(stack, printer.computer_id, job.id)
    assert [len(c) for c in chunks[:-1]] == [1024 * 1024] * (len(chunks) - 1)
    assert len(chunks) == 3
    assert b"".join(chunks) == content
    assert hashlib.sha256(b"".join(chunks)).hexdigest() == job.file_sha256

    await report(stack, printer.computer_id, job.id, "received")
    await report(stack, printer.computer_id, job.id, "printing")
    assert b"".join(await read_file(stack, printer.computer_id, job.id)) == content
    await report(stack, printer.computer_id, job.id, "done")
    with pytest.raises(ApiError) as caught:
        await read_file(stack, printer.computer_id, job.id)
    assert caught.value.code == "conflict"


async def test_file_of_a_queued_job_is_not_served(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    with pytest.raises(ApiError) as caught:
        await read_file(stack, printer.computer_id, job.id)
    assert caught.value.code == "conflict"


async def test_every_chunk_stream_starts_with_the_files_size(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    request = jobs_pb2.AgentJobRequest(computer_id=printer.computer_id, job_id=job.id)
    chunks = [chunk async for chunk in rpc.stream(stack.jobs.ReadJobFile, request)]
    assert chunks[0].file_size == job.file_size > 0


async def test_pending_jobs_are_the_computers_queued_jobs_oldest_first(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    neighbour = stack.add_printer(scope, computer_id=printer.computer_id)
    elsewhere = stack.add_printer(scope)
    first = await stack.create_job(scope, printer, title="first")
    sent = await stack.create_job(scope, printer, title="sent")
    second = await stack.create_job(scope, neighbour, title="second")
    await stack.create_job(scope, elsewhere, title="other computer")
    await claim(stack, printer.computer_id, sent.id)

    pending = await rpc.call(
        stack.jobs.ListPendingJobs, jobs_pb2.ListPendingJobsRequest(computer_id=printer.computer_id)
    )

    assert [d.job_id for d in pending.items] == [first.id, second.id]
    assert [d.printer_id for d in pending.items] == [printer.id, neighbour.id]
    assert {d.state for d in pending.items} == {"queued"}


def _report_item(
    computer_id: str, job_id: str, state: str, message: str | None = None, trace: dict[str, str] | None = None
) -> jobs_pb2.ReportJobStateRequest:
    return jobs_pb2.ReportJobStateRequest(
        computer_id=computer_id, job_id=job_id, state=state, message=message, trace=trace or {}
    )


async def report_batch(stack: Stack, *items: jobs_pb2.ReportJobStateRequest) -> list[tuple[str, str]]:
    answer = await rpc.call(stack.jobs.ReportJobStates, jobs_pb2.ReportJobStatesRequest(reports=items))
    return [(outcome.error_code, outcome.error_message) for outcome in answer.outcomes]


async def test_a_batch_records_several_computers_jobs_in_order_as_single_reports_would(stack: Stack) -> None:
    first_printer, first = await _sent_job(stack)
    second_printer, second = await _sent_job(stack)
    one, other = first_printer.computer_id, second_printer.computer_id

    outcomes = await report_batch(
        stack,
        _report_item(one, first.id, "received"),
        _report_item(other, second.id, "received"),
        _report_item(one, first.id, "printing"),
        _report_item(one, first.id, "printing"),  # a repeat, in the same batch
        _report_item(one, first.id, "done", "duplex ignored"),
    )

    assert outcomes == [("", "")] * 5
    assert [c.state for c in await stack.state_changes(first.id)] == ["queued", "sent", "received", "printing", "done"]
    assert [c.state for c in await stack.state_changes(second.id)] == ["queued", "sent", "received"]
    events = [r.payload for r in await stack.outbox_rows(first.id) if r.topic == DOMAIN_EVENTS]
    assert [e["type"] for e in events][-3:] == ["printjob.received", "printjob.printing", "printjob.done"]
    assert events[-1]["data"]["stateMessage"] == "duplex ignored"


async def test_a_refused_report_in_a_batch_changes_nothing_and_leaves_the_others_recorded(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    other_printer, other_job = await _sent_job(stack)
    computer = printer.computer_id

    outcomes = await report_batch(
        stack,
        _report_item(computer, job.id, "done", "the agent's reason"),  # sent → done is not a transition
        _report_item(computer, other_job.id, "received"),  # another computer's job
        _report_item(computer, job.id, "queued"),  # not a state agents report
        _report_item(computer, "not-an-id", "received"),
        _report_item(computer, job.id, "received"),
    )

    assert [code for code, _ in outcomes] == ["conflict", "not_found", "invalid_request", "not_found", ""]
    assert outcomes[0][1] == "The job is `sent`; it cannot become `done`."
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "sent", "received"]
    (received,) = [r.payload for r in await stack.outbox_rows(job.id) if r.payload["type"] == "printjob.received"]
    assert received["data"].get("stateMessage") is None, "the refused done's message was not kept"
    assert [c.state for c in await stack.state_changes(other_job.id)] == ["queued", "sent"]
    assert other_printer.computer_id != computer


async def test_each_report_of_a_batch_carries_its_own_trace_into_its_event(stack: Stack) -> None:
    printer, job = await _sent_job(stack)
    other_printer, other_job = await _sent_job(stack)
    traces = [f"00-{n:032x}-{n:016x}-01" for n in (1, 2)]

    await report_batch(
        stack,
        _report_item(printer.computer_id, job.id, "received", trace={"traceparent": traces[0]}),
        _report_item(other_printer.computer_id, other_job.id, "received", trace={"traceparent": traces[1]}),
    )

    for traced, traceparent in zip((job, other_job), traces, strict=True):
        (event,) = [r for r in await stack.outbox_rows(traced.id) if r.payload["type"] == "printjob.received"]
        assert event.headers["traceparent"].split("-")[1] == traceparent.split("-")[1]


async def claim_batch(stack: Stack, *items: jobs_pb2.ClaimDeliveryRequest) -> list[jobs_pb2.ClaimOutcome]:
    answer = await rpc.call(stack.jobs.ClaimDeliveries, jobs_pb2.ClaimDeliveriesRequest(claims=items))
    return list(answer.outcomes)


async def test_a_batch_of_claims_decides_each_in_order_as_single_claims_would(stack: Stack) -> None:
    scope = stack.new_scope()
    printer, other_printer = stack.add_printer(scope), stack.add_printer(scope)
    first = await stack.create_job(scope, printer, data=b"%PDF-1.7 small")
    second = await stack.create_job(scope, other_printer)
    one, other = printer.computer_id, other_printer.computer_id

    outcomes = await claim_batch(
        stack,
        jobs_pb2.ClaimDeliveryRequest(computer_id=other, job_id=second.id),
        jobs_pb2.ClaimDeliveryRequest(computer_id=one, job_id=first.id, content_up_to=1000),
        jobs_pb2.ClaimDeliveryRequest(computer_id=one, job_id=first.id),  # a second push, in the same batch
        jobs_pb2.ClaimDeliveryRequest(computer_id=one, job_id=first.id, resend_of=1),  # the resend timer's
        jobs_pb2.ClaimDeliveryRequest(computer_id=one, job_id=second.id),  # another computer's job
        jobs_pb2.ClaimDeliveryRequest(computer_id=one, job_id="not-an-id"),
    )

    assert [(o.error_code, o.answer.claimed) for o in outcomes] == [
        ("", True),
        ("", True),
        ("", False),
        ("", True),
        ("not_found", False),
        ("not_found", False),
    ]
    assert outcomes[1].answer.delivery.content == b"%PDF-1.7 small"
    assert not outcomes[0].answer.delivery.HasField("content"), "a claim asking for no file gets none"
    assert await stack.send_count(first.id) == 2
    assert [c.state for c in await stack.state_changes(first.id)] == ["queued", "sent"]
    assert [c.state for c in await stack.state_changes(second.id)] == ["queued", "sent"]


async def test_batches_claiming_the_same_jobs_in_opposite_orders_each_claim_a_job_once(stack: Stack) -> None:
    """Two agent-gateway replicas racing for the same jobs: each job is claimed exactly once, and
    the batches wait on each other in id order, never in a cycle."""
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    made = [await stack.create_job(scope, printer) for _ in range(6)]
    items = [jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id) for job in made]

    batches = await asyncio.gather(*(claim_batch(stack, *order) for order in (items, items[::-1]) * 3))

    for index, job in enumerate(made):
        answers = [batch[index if n % 2 == 0 else -1 - index] for n, batch in enumerate(batches)]
        assert [a.answer.claimed for a in answers].count(True) == 1, job.id
        assert await stack.send_count(job.id) == 1


async def test_each_claim_of_a_batch_carries_its_own_trace_into_its_event(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    made = [await stack.create_job(scope, printer) for _ in range(2)]
    traces = [f"00-{n:032x}-{n:016x}-01" for n in (3, 4)]

    await claim_batch(
        stack,
        *(
            jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id, trace={"traceparent": t})
            for job, t in zip(made, traces, strict=True)
        ),
    )

    for traced, traceparent in zip(made, traces, strict=True):
        (event,) = [r for r in await stack.outbox_rows(traced.id) if r.payload["type"] == "printjob.sent"]
        assert event.headers["traceparent"].split("-")[1] == traceparent.split("-")[1]


async def test_a_batch_of_more_jobs_than_one_lock_statement_takes_is_claimed_and_reported_whole(stack: Stack) -> None:
    """A batch's jobs are locked in parts of at most 64 ids, each part's count of ids rounded up:
    70 jobs, one of them asked for twice, cross a part's end and fill no part exactly."""
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    made = [await stack.create_job(scope, printer) for _ in range(70)]
    computer = printer.computer_id

    claims = [jobs_pb2.ClaimDeliveryRequest(computer_id=computer, job_id=job.id) for job in made]
    outcomes = await claim_batch(stack, *claims[::-1], claims[0])
    assert [o.answer.claimed for o in outcomes] == [True] * 70 + [False]

    reports = [jobs_pb2.ReportJobStateRequest(computer_id=computer, job_id=job.id, state="received") for job in made]
    assert await report_batch(stack, *reports) == [("", "")] * 70
    for job in made:
        assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "sent", "received"]


def _column(name: str) -> Any:
    return literal_column(name)


# This connection's prepared statements that lock jobs by a list of ids, with how often each was
# planned without its values (generic) and with them (custom).
_PLANS = CompiledRead.of(
    select(*(_column(name) for name in ("statement", "generic_plans", "custom_plans")))
    .select_from(text("pg_prepared_statements"))
    .where(text("statement LIKE '%print_jobs.id IN (%FOR UPDATE%' AND statement NOT LIKE '%pg_prepared_statements%'"))
)


async def _plans(transaction: DriverTransaction) -> dict[str, tuple[int, int]]:
    return {row[0]: (row[1], row[2]) for row in await transaction.fetch(_PLANS)}


async def test_a_batch_lock_statement_is_planned_once_not_at_every_call(stack: Stack) -> None:
    """PostgreSQL plans a statement again at every call while its plan made without its values
    looks worse than those made with them, as it does for `= ANY` of an array; a batch's lock
    takes each id as a parameter of its own, so that after its first five calls it keeps one plan."""
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    made = [uuid.UUID((await stack.create_job(scope, printer)).id) for _ in range(9)]
    calls = 12
    async with stack.db.driver_transaction() as transaction:
        before = await _plans(transaction)
        for n in range(calls):
            batch = made[3 * (n % 3) : 3 * (n % 3) + 3]
            assert set(await repository.lock_jobs(transaction, batch)) == set(batch)
            assert set(await repository.lock_claimed_jobs(transaction, batch, 1000)) == set(batch)
        after = await _plans(transaction)
    planned = [
        (generic - before.get(sql, (0, 0))[0], custom - before.get(sql, (0, 0))[1])
        for sql, (generic, custom) in after.items()
        if after[sql] != before.get(sql)
    ]
    assert len(planned) == 2, planned
    for generic, custom in planned:
        assert custom <= 5 and generic == calls - custom, (generic, custom)
