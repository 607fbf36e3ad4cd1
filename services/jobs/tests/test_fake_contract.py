"""The shared `FakeJobs` (tests/support/fakes) against the real servicer: the rules the
api-gateway's, agent-gateway's and dispatcher's tests lean on answer the same from both."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import SLICE_BYTES, upload_parts
from printcloud.core import rpc
from printcloud.core.ids import new_id
from printcloud.core.scope import Scope
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc
from tests.support.fakes.jobs import FakeJobs
from tests.support.grpc_server import serving

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

DOCUMENT = b"%PDF-1.7\n% a document of a few chunks\n"


@dataclass
class Either:
    jobs: jobs_pb2_grpc.JobsStub
    scope: Scope
    printer_id: str

    @property
    def proto_scope(self) -> common_pb2.Scope:
        return common_pb2.Scope(organization_id=str(self.scope.organization_id), mode=self.scope.mode)

    async def create(self, title: str = "Invoice", *, small: bool = False) -> jobs_pb2.PrintJob:
        request = jobs_pb2.CreateJobRequest(
            scope=self.proto_scope, printer_id=self.printer_id, title=title, content_type="pdf_base64",
            source="api", qty=1, expire_after=3600, options_json="{}",
        )  # fmt: skip
        created: jobs_pb2.CreateJobResponse
        if small:
            created = await rpc.call(
                self.jobs.CreateSmallJob, jobs_pb2.CreateSmallJobRequest(request=request, document=DOCUMENT)
            )
        else:
            created = await rpc.call(self.jobs.CreateJob, upload_parts(request, DOCUMENT))
        return created.job


@pytest.fixture(params=["real", "fake"])
async def either(request: pytest.FixtureRequest, stack: Stack) -> AsyncIterator[Either]:
    scope = Scope(uuid.uuid4(), "live")
    if request.param == "real":
        yield Either(stack.jobs, scope, stack.add_printer(scope).id)
        return
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, FakeJobs()) as channel:
        yield Either(jobs_pb2_grpc.JobsStub(channel), scope, new_id())


async def _code(answer: Awaitable[object]) -> str:
    with pytest.raises(ApiError) as caught:
        await answer
    return caught.value.code


async def _file(either: Either, job: jobs_pb2.PrintJob) -> tuple[bytes, int]:
    request = jobs_pb2.AgentJobRequest(computer_id=job.computer_id, job_id=job.id)
    chunks = [chunk async for chunk in rpc.stream(either.jobs.ReadJobFile, request)]
    return b"".join(chunk.data for chunk in chunks), chunks[0].file_size


async def test_a_job_is_seen_in_its_scope_only(either: Either) -> None:
    job = await either.create()
    assert (job.state, job.file_size, job.title) == ("queued", len(DOCUMENT), "Invoice")
    found = await rpc.call(either.jobs.GetJob, jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id))
    assert found.id == job.id
    other_org = common_pb2.Scope(organization_id=str(uuid.uuid4()), mode="live")
    other_mode = common_pb2.Scope(organization_id=str(either.scope.organization_id), mode="test")
    for elsewhere in (other_org, other_mode):
        assert (
            await _code(rpc.call(either.jobs.GetJob, jobs_pb2.GetJobRequest(scope=elsewhere, id=job.id))) == "not_found"
        )


async def test_one_claim_per_push_and_the_file_while_with_the_agent(either: Either) -> None:
    job = await either.create()
    request = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id)
    with pytest.raises(ApiError) as refused:
        await _file(either, job)
    assert refused.value.code == "conflict", "a queued job's file is not with an agent yet"
    first = await rpc.call(either.jobs.ClaimDelivery, request)
    assert (first.claimed, first.delivery.state, first.delivery.job_id) == (True, "sent", job.id)
    assert (await rpc.call(either.jobs.ClaimDelivery, request)).claimed is False
    resend = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id, resend_of=1)
    assert (await rpc.call(either.jobs.ClaimDelivery, resend)).claimed is True
    assert (await rpc.call(either.jobs.ClaimDelivery, resend)).claimed is False, "the same resend twice pushes once"
    assert await _file(either, job) == (DOCUMENT, len(DOCUMENT))
    received = jobs_pb2.ReportJobStateRequest(computer_id=job.computer_id, job_id=job.id, state="received")
    assert (await rpc.call(either.jobs.ReportJobState, received)).state == "received"
    cancel = jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id)
    assert await _code(rpc.call(either.jobs.CancelJob, cancel)) == "not_cancellable", "the agent has it"


@pytest.mark.parametrize("claimed", [False, True])
async def test_a_queued_or_sent_job_cancels_once(either: Either, claimed: bool) -> None:
    job = await either.create()
    if claimed:
        claim = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id)
        assert (await rpc.call(either.jobs.ClaimDelivery, claim)).claimed is True
    cancel = jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id)
    assert (await rpc.call(either.jobs.CancelJob, cancel)).state == "cancelled"
    assert await _code(rpc.call(either.jobs.CancelJob, cancel)) == "not_cancellable"
    claim = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id)
    assert (await rpc.call(either.jobs.ClaimDelivery, claim)).claimed is False


async def test_jobs_page_newest_first_and_a_bad_page_is_invalid(either: Either) -> None:
    ids = [(await either.create(f"Job {n}")).id for n in range(3)]
    page = common_pb2.PageRequest(limit=2)
    first = await rpc.call(either.jobs.ListJobs, jobs_pb2.ListJobsRequest(scope=either.proto_scope, page=page))
    assert [j.id for j in first.items] == [ids[2], ids[1]]
    assert (first.page.has_more, first.page.next_cursor) == (True, ids[1])
    bad = jobs_pb2.ListJobsRequest(scope=either.proto_scope, page=common_pb2.PageRequest(after="not-a-cursor"))
    assert await _code(rpc.call(either.jobs.ListJobs, bad)) == "invalid_request"


async def test_jobs_are_searched_by_title_ignoring_case_and_percent_signs(either: Either) -> None:
    invoice, _, discount = [(await either.create(title)).id for title in ("Invoice 7", "Receipt", "50% off_sale")]
    scope = either.proto_scope

    async def titled(text: str) -> list[str]:
        request = jobs_pb2.ListJobsRequest(scope=scope, filters=jobs_pb2.JobFilters(title_contains=text))
        return [job.id for job in (await rpc.call(either.jobs.ListJobs, request)).items]

    assert await titled("INVOICE") == [invoice]
    assert await titled("0% o") == [discount]
    assert await titled("%") == [discount], "a LIKE wildcard is the character itself"
    assert await titled("f_s") == [discount]
    assert await titled("nothing") == []


async def test_the_stored_file_is_read_in_its_scope_whatever_the_state(either: Either) -> None:
    job = await either.create()
    cancel = jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id)
    await rpc.call(either.jobs.CancelJob, cancel)
    chunks = [chunk async for chunk in rpc.stream(either.jobs.ReadStoredFile, cancel)]
    assert b"".join(chunk.data for chunk in chunks) == DOCUMENT and chunks[0].file_size == len(DOCUMENT)
    elsewhere = jobs_pb2.GetJobRequest(
        scope=common_pb2.Scope(organization_id=str(uuid.uuid4()), mode="live"), id=job.id
    )
    with pytest.raises(ApiError) as refused:
        _ = [chunk async for chunk in rpc.stream(either.jobs.ReadStoredFile, elsewhere)]
    assert refused.value.code == "not_found"


async def test_a_batch_of_reports_answers_each_as_a_single_report_would(either: Either) -> None:
    job = await either.create()
    claim = jobs_pb2.ClaimDeliveryRequest(computer_id=job.computer_id, job_id=job.id)
    assert (await rpc.call(either.jobs.ClaimDelivery, claim)).claimed is True

    def report(state: str) -> jobs_pb2.ReportJobStateRequest:
        return jobs_pb2.ReportJobStateRequest(computer_id=job.computer_id, job_id=job.id, state=state)

    batch = jobs_pb2.ReportJobStatesRequest(reports=[report("received"), report("queued"), report("printing")])
    answer = await rpc.call(either.jobs.ReportJobStates, batch)
    assert [outcome.error_code for outcome in answer.outcomes] == ["", "invalid_request", ""]
    got = await rpc.call(either.jobs.GetJob, jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id))
    assert got.state == "printing"


async def test_a_job_in_one_message_is_the_job_the_stream_makes(either: Either) -> None:
    streamed, small = await either.create("Streamed"), await either.create("Small", small=True)
    assert (small.title, small.printer_id, small.state) == ("Small", streamed.printer_id, streamed.state)
    for job in (streamed, small):
        stored = jobs_pb2.GetJobRequest(scope=either.proto_scope, id=job.id)
        chunks = [chunk async for chunk in rpc.stream(either.jobs.ReadStoredFile, stored)]
        assert b"".join(chunk.data for chunk in chunks) == DOCUMENT and chunks[0].file_size == len(DOCUMENT)
    too_large = jobs_pb2.CreateSmallJobRequest(request=jobs_pb2.CreateJobRequest(), document=b"x" * (SLICE_BYTES + 1))
    assert await _code(rpc.call(either.jobs.CreateSmallJob, too_large)) == "invalid_request"
