"""Agents' reports and pushes' claims go to jobs in batches: those that arrive while a call is on its
way go together."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from printcloud.agent_gateway.transport.jobs_client import JobsClient
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

    async def _held(self, size: int) -> None:
        self.batches.append(size)
        self.arrived.set()
        if len(self.batches) == 1:
            await self.release.wait()

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        await self._held(len(request.reports))
        return await super().ReportJobStates(request, context)

    async def ClaimDeliveries(self, request: jobs_pb2.ClaimDeliveriesRequest, context: Any) -> Any:
        await self._held(len(request.claims))
        return await super().ClaimDeliveries(request, context)


class EarlierJobs(FakeJobs):
    """A jobs replica of a release before batches: it does not know the calls."""

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")

    async def ClaimDeliveries(self, request: jobs_pb2.ClaimDeliveriesRequest, context: Any) -> Any:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "Method not found!")


def _reports(jobs: FakeJobs, count: int) -> list[jobs_pb2.ReportJobStateRequest]:
    made = [jobs.add_job("o", "live", "p") for _ in range(count)]
    for job in made:
        jobs.jobs[job.id].move("sent")
    return [jobs_pb2.ReportJobStateRequest(computer_id=j.computer_id, job_id=j.id, state="received") for j in made]


async def test_reports_that_arrive_while_a_call_is_on_its_way_go_together_in_the_next() -> None:
    jobs = HeldJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        first, *others = _reports(jobs, 4)
        sent_first = asyncio.create_task(batches.call(first))
        await asyncio.wait_for(jobs.arrived.wait(), 5)
        waiting = [asyncio.create_task(batches.call(report)) for report in others]
        await asyncio.sleep(0)  # every later report has joined the queue
        jobs.release.set()
        await asyncio.gather(sent_first, *waiting)
    assert jobs.batches == [1, 3]
    assert [jobs.jobs[r.job_id].job.state for r in [first, *others]] == ["received"] * 4


async def test_a_refused_report_raises_for_its_sender_alone() -> None:
    jobs = HeldJobs()
    jobs.release.set()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        good, bad = _reports(jobs, 2)
        bad.computer_id = "another computer"
        results = await asyncio.gather(batches.call(good), batches.call(bad), return_exceptions=True)
    assert results[0] is None
    assert isinstance(results[1], ApiError) and results[1].code == "not_found"


async def test_a_jobs_of_an_earlier_release_takes_the_reports_one_by_one() -> None:
    jobs = EarlierJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        batches = JobsClient(jobs_pb2_grpc.JobsStub(channel)).state_reports
        reports = _reports(jobs, 2)
        await asyncio.gather(*(batches.call(report) for report in reports))
        reports[0].state = "bogus"
        with pytest.raises(ApiError) as refused:
            await batches.call(reports[0])
    assert refused.value.code == "invalid_request"
    assert len(jobs.recorder.named("ReportJobState")) == 3
    assert [jobs.jobs[r.job_id].job.state for r in reports] == ["received", "received"]


async def test_claims_that_arrive_while_a_call_is_on_its_way_go_together_and_each_gets_its_answer() -> None:
    jobs = HeldJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        client = JobsClient(jobs_pb2_grpc.JobsStub(channel))
        made = [jobs.add_job("o", "live", "p") for _ in range(4)]
        first = asyncio.create_task(client.claim_delivery(made[0].computer_id, made[0].id, None))
        await asyncio.wait_for(jobs.arrived.wait(), 5)
        others = [
            asyncio.create_task(client.claim_delivery(made[1].computer_id, made[1].id, None)),
            asyncio.create_task(client.claim_delivery(made[1].computer_id, made[1].id, None)),  # lost to the one before
            asyncio.create_task(client.claim_delivery("another computer", made[2].id, None)),
        ]
        await asyncio.sleep(0)  # every later claim has joined the queue
        jobs.release.set()
        answers = await asyncio.gather(first, *others, return_exceptions=True)
    assert jobs.batches == [1, 3]
    assert [getattr(answer, "job_id", answer) for answer in answers[:3]] == [made[0].id, made[1].id, None]
    assert isinstance(answers[3], ApiError) and answers[3].code == "not_found"
    assert [r.job_id for r in jobs.recorder.named("Claimed")] == [made[0].id, made[1].id]


async def test_a_jobs_of_an_earlier_release_takes_the_claims_one_by_one() -> None:
    jobs = EarlierJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        client = JobsClient(jobs_pb2_grpc.JobsStub(channel))
        made = [jobs.add_job("o", "live", "p") for _ in range(2)]
        claimed = await asyncio.gather(*(client.claim_delivery(j.computer_id, j.id, None) for j in made))
    assert [job.job_id if job else None for job in claimed] == [j.id for j in made]
    assert len(jobs.recorder.named("ClaimDelivery")) == 2
