"""The dispatcher's loop: full batches are followed at once, failures wait for the next poll."""

from __future__ import annotations

import asyncio

from prometheus_client import REGISTRY

from printcloud.contracts.errors import ApiError
from printcloud.dispatcher.transport.jobs_client import JobsClient
from printcloud.dispatcher.workers.timer_loop import TimerLoop
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.fakes.jobs import FakeJobs
from tests.support.grpc_server import serving

BATCH = 2


def _fake(answers: list[jobs_pb2.FireDueTimersResponse | BaseException]) -> FakeJobs:
    fake = FakeJobs()
    fake.timer_answers = answers
    return fake


async def _run(fake: FakeJobs, poll_seconds: float) -> float:
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, fake) as channel:
        loop = asyncio.get_running_loop()
        started = loop.time()
        task = asyncio.create_task(TimerLoop(JobsClient(jobs_pb2_grpc.JobsStub(channel)), BATCH, poll_seconds).run())
        try:
            await asyncio.wait_for(fake.timers_drained.wait(), 10)
            return loop.time() - started
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def test_full_batches_are_followed_at_once() -> None:
    full = jobs_pb2.FireDueTimersResponse(resent=1, expired=1)
    fake = _fake([full, full, full])
    elapsed = await _run(fake, poll_seconds=30)
    assert len(fake.requests) == 4, "three full batches, then the one that found nothing"
    assert elapsed < 30
    assert fake.requests[0] == jobs_pb2.FireDueTimersRequest(limit=BATCH), "a bare trigger: only the batch size"


async def test_a_failing_jobs_service_is_asked_again_after_the_poll_interval() -> None:
    fake = _fake([ApiError("service_unavailable", "down"), jobs_pb2.FireDueTimersResponse(timed_out=1)])
    await _run(fake, poll_seconds=0.05)
    assert len(fake.requests) == 3


def rounds(outcome: str) -> float:
    return REGISTRY.get_sample_value("printcloud_job_timer_rounds_total", {"outcome": outcome}) or 0.0


async def test_rounds_are_counted_by_outcome() -> None:
    before = {outcome: rounds(outcome) for outcome in ("ok", "failed")}
    fake = _fake(
        [ApiError("service_unavailable", "down"), ApiError("internal_error", "bug"), jobs_pb2.FireDueTimersResponse()]
    )
    await _run(fake, poll_seconds=0.01)
    assert rounds("failed") == before["failed"] + 2
    assert rounds("ok") >= before["ok"] + 1
