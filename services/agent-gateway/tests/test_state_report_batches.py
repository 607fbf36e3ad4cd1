"""Agents' reports go to jobs in batches: those that arrive while a call is on its way go together."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from printcloud.agent_gateway.transport.state_report_batches import StateReportBatches
from printcloud.contracts.errors import ApiError
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.fakes.jobs import FakeJobs
from tests.support.grpc_server import serving


class HeldJobs(FakeJobs):
    """Holds its first batch until released, as a busy jobs service would."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.arrived = asyncio.Event()
        self.batches: list[int] = []

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        self.batches.append(len(request.reports))
        self.arrived.set()
        if len(self.batches) == 1:
            await self.release.wait()
        return await super().ReportJobStates(request, context)


class EarlierJobs(FakeJobs):
    """A jobs replica of a release before batches: it does not know the call."""

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


def _reports(jobs: FakeJobs, count: int) -> list[jobs_pb2.ReportJobStateRequest]:
    made = [jobs.add_job("o", "live", "p") for _ in range(count)]
    for job in made:
        jobs.jobs[job.id].move("sent")
    return [jobs_pb2.ReportJobStateRequest(computer_id=j.computer_id, job_id=j.id, state="received") for j in made]


async def test_reports_that_arrive_while_a_call_is_on_its_way_go_together_in_the_next() -> None:
    jobs = HeldJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = StateReportBatches(jobs_pb2_grpc.JobsStub(channel))
        first, *others = _reports(jobs, 4)
        sent_first = asyncio.create_task(batches.report(first))
        await asyncio.wait_for(jobs.arrived.wait(), 5)
        waiting = [asyncio.create_task(batches.report(report)) for report in others]
        await asyncio.sleep(0)  # every later report has joined the queue
        jobs.release.set()
        await asyncio.gather(sent_first, *waiting)
    assert jobs.batches == [1, 3]
    assert [jobs.jobs[r.job_id].job.state for r in [first, *others]] == ["received"] * 4


async def test_a_refused_report_raises_for_its_sender_alone() -> None:
    jobs = HeldJobs()
    jobs.release.set()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = StateReportBatches(jobs_pb2_grpc.JobsStub(channel))
        good, bad = _reports(jobs, 2)
        bad.computer_id = "another computer"
        results = await asyncio.gather(batches.report(good), batches.report(bad), return_exceptions=True)
    assert results[0] is None
    assert isinstance(results[1], ApiError) and results[1].code == "not_found"


async def test_a_jobs_of_an_earlier_release_takes_the_reports_one_by_one() -> None:
    jobs = EarlierJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = StateReportBatches(jobs_pb2_grpc.JobsStub(channel))
        reports = _reports(jobs, 2)
        await asyncio.gather(*(batches.report(report) for report in reports))
        reports[0].state = "bogus"
        with pytest.raises(ApiError) as refused:
            await batches.report(reports[0])
    assert refused.value.code == "invalid_request"
    assert len(jobs.recorder.named("ReportJobState")) == 3
    assert [jobs.jobs[r.job_id].job.state for r in reports] == ["received", "received"]
