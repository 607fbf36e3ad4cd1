"""A job's events go to the topic recorded on its row, for its whole life, however its states are
recorded; a job is created with none recorded, whose events go to `printcloud.domain-events`,
unless the process creates its jobs on `printcloud.job-events` (a setting)."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import select, update

from printcloud.core import rpc
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS, JOB_EVENTS
from printcloud.jobs.persistence.tables import print_jobs
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def _recorded_topic(stack: Stack, job_id: str) -> str | None:
    async with stack.db.read() as session:
        query = select(print_jobs.c.events_topic).where(print_jobs.c.id == uuid.UUID(job_id))
        topic: str | None = (await session.execute(query)).scalar_one()
        return topic


async def _record_topic(stack: Stack, job_id: str, topic: str) -> None:
    """What a later release writes when it creates the job."""
    async with stack.db.transaction() as session:
        await session.execute(update(print_jobs).where(print_jobs.c.id == uuid.UUID(job_id)).values(events_topic=topic))


def _report(printer: devices_pb2.Printer, job: jobs_pb2.PrintJob, state: str) -> jobs_pb2.ReportJobStateRequest:
    return jobs_pb2.ReportJobStateRequest(computer_id=printer.computer_id, job_id=job.id, state=state)


async def _walk_to_done(stack: Stack, printer: devices_pb2.Printer, job: jobs_pb2.PrintJob) -> None:
    """`sent` by a claim, `received` by a single report, `printing` and `done` in a batch."""
    claim = jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id)
    assert (await rpc.call(stack.jobs.ClaimDelivery, claim)).claimed
    await rpc.call(stack.jobs.ReportJobState, _report(printer, job, "received"))
    batch = jobs_pb2.ReportJobStatesRequest(reports=[_report(printer, job, "printing"), _report(printer, job, "done")])
    answer = await rpc.call(stack.jobs.ReportJobStates, batch)
    assert [outcome.error_code for outcome in answer.outcomes] == ["", ""]


async def _events_by_topic(stack: Stack, job_id: str) -> list[tuple[str, str]]:
    return [(row.topic, row.payload["type"]) for row in await stack.outbox_rows(job_id)]


async def test_a_new_job_records_no_topic_and_its_events_go_to_the_domain_events(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    assert await _recorded_topic(stack, job.id) is None

    await _walk_to_done(stack, printer, job)

    events = [(topic, kind) for topic, kind in await _events_by_topic(stack, job.id) if topic != AGENT_COMMANDS]
    states = ["queued", "sent", "received", "printing", "done"]
    assert events == [(DOMAIN_EVENTS, f"printjob.{state}") for state in states]


async def test_a_job_whose_row_names_the_job_events_topic_sends_every_later_event_there(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await _record_topic(stack, job.id, JOB_EVENTS)

    await _walk_to_done(stack, printer, job)

    later = (await _events_by_topic(stack, job.id))[2:]  # after its creation's event and command
    assert later == [(JOB_EVENTS, f"printjob.{state}") for state in ("sent", "received", "printing", "done")]


async def test_a_cancelled_jobs_command_stays_on_the_agent_commands(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    await _record_topic(stack, job.id, JOB_EVENTS)

    await rpc.call(stack.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id))

    later = (await _events_by_topic(stack, job.id))[2:]
    assert later == [(JOB_EVENTS, "printjob.cancelled"), (AGENT_COMMANDS, "job.cancel")]


async def test_a_process_creating_jobs_on_the_job_events_topic_sends_all_their_events_there(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stack.service, "new_jobs_topic", JOB_EVENTS)
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    assert await _recorded_topic(stack, job.id) == JOB_EVENTS

    await _walk_to_done(stack, printer, job)

    events = [(topic, kind) for topic, kind in await _events_by_topic(stack, job.id) if topic != AGENT_COMMANDS]
    assert events == [(JOB_EVENTS, f"printjob.{state}") for state in ("queued", "sent", "received", "printing", "done")]
