"""CancelJob: only before the agent has the job; recorded, announced and commanded once."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.core.scope import Scope
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def cancel(stack: Stack, scope: Scope, job_id: str) -> jobs_pb2.PrintJob:
    return await rpc.call(stack.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job_id))


async def advance(stack: Stack, printer: devices_pb2.Printer, job_id: str, states: list[str]) -> None:
    for state in states:
        if state == "sent":
            await rpc.call(
                stack.jobs.ClaimDelivery, jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job_id)
            )
        else:
            request = jobs_pb2.ReportJobStateRequest(computer_id=printer.computer_id, job_id=job_id, state=state)
            await rpc.call(stack.jobs.ReportJobState, request)


@pytest.mark.parametrize("walk", [[], ["sent"]])
async def test_queued_or_sent_job_is_cancelled(stack: Stack, walk: list[str]) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await advance(stack, printer, job.id, walk)
    rows_before = len(await stack.outbox_rows(job.id))

    cancelled = await cancel(stack, scope, job.id)

    assert cancelled.state == "cancelled" and cancelled.HasField("finished_at")
    last = (await stack.state_changes(job.id))[-1]
    assert (last.state, last.actor) == ("cancelled", "api")
    assert len(await stack.state_changes(job.id)) == 2 + len(walk)
    event, command = (await stack.outbox_rows(job.id))[rows_before:]
    assert (event.topic, event.key, event.payload["type"]) == (DOMAIN_EVENTS, job.id, "printjob.cancelled")
    assert event.payload["data"] == representations.print_job(cancelled)
    assert (command.topic, command.key, command.payload["type"]) == (AGENT_COMMANDS, printer.computer_id, "job.cancel")
    assert command.payload["data"] == {"computerId": printer.computer_id, "jobId": job.id}


@pytest.mark.parametrize(
    "walk",
    [["sent", "received"], ["sent", "received", "printing"], ["sent", "received", "printing", "done"], ["error"]],
)
async def test_job_the_agent_has_or_finished_is_not_cancellable(stack: Stack, walk: list[str]) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await advance(stack, printer, job.id, walk)
    changes, rows = await stack.state_changes(job.id), await stack.outbox_rows(job.id)

    with pytest.raises(ApiError) as caught:
        await cancel(stack, scope, job.id)

    assert caught.value.code == "not_cancellable"
    assert await stack.state_changes(job.id) == changes
    assert await stack.outbox_rows(job.id) == rows


async def test_cancelling_twice_is_not_cancellable(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    await cancel(stack, scope, job.id)
    with pytest.raises(ApiError) as caught:
        await cancel(stack, scope, job.id)
    assert caught.value.code == "not_cancellable"


async def test_cancelled_job_cannot_be_sent(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await cancel(stack, scope, job.id)
    claimed = await rpc.call(
        stack.jobs.ClaimDelivery, jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id)
    )
    assert not claimed.claimed and claimed.delivery.state == "cancelled"
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued", "cancelled"]
