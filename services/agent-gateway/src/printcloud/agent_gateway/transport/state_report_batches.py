"""Agents' job-state reports go to jobs in batches: while one call is on its way, the reports that
arrive meanwhile, from any connection, wait and go together in the next call, which jobs records in
one transaction. A report that finds no call on its way goes at once, so batching adds no wait; under
load, one call carries many reports instead of each paying a call and a transaction of its own.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from dataclasses import dataclass, field

import grpc

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.rpc.channels import DEFAULT_TIMEOUT_SECONDS
from printcloud.core.rpc.wire import decode_error
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc

log = logging.getLogger(__name__)

# As many as one call carries; more wait for the next.
MOST_PER_CALL = 500
# A jobs replica of an earlier release, met during a rolling upgrade, is asked again after this.
ASK_AGAIN_SECONDS = 60.0


@dataclass
class _Waiting:
    request: jobs_pb2.ReportJobStateRequest
    answer: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class StateReportBatches:
    def __init__(self, stub: jobs_pb2_grpc.JobsStub, *, most_per_call: int = MOST_PER_CALL) -> None:
        self.stub = stub
        self.most_per_call = most_per_call
        self._waiting: list[_Waiting] = []
        self._sender: asyncio.Task[None] | None = None
        self._singles_until = 0.0

    async def report(self, request: jobs_pb2.ReportJobStateRequest) -> None:
        """Returns once jobs recorded the report (or took it as a repeat); raises the `ApiError`
        jobs answered for it alone, or the batch's failure."""
        waiting = _Waiting(request)
        self._waiting.append(waiting)
        if self._sender is None or self._sender.done():
            # In a context of its own: the batch's call belongs to no one report's trace (each
            # report carries its own in `trace`).
            self._sender = asyncio.create_task(self._send_waiting(), context=contextvars.Context())
        await waiting.answer

    async def _send_waiting(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting[: self.most_per_call], self._waiting[self.most_per_call :]
            try:
                outcomes = await self._send([waiting.request for waiting in batch])
            except BaseException as error:
                for waiting in batch:
                    if not waiting.answer.done():
                        waiting.answer.set_exception(error)
                if not isinstance(error, Exception):
                    raise
                continue
            for waiting, refused in zip(batch, outcomes, strict=True):
                if waiting.answer.done():
                    continue  # its connection went away meanwhile
                if refused is None:
                    waiting.answer.set_result(None)
                else:
                    waiting.answer.set_exception(refused)

    async def _send(self, requests: list[jobs_pb2.ReportJobStateRequest]) -> list[ApiError | None]:
        if time.monotonic() >= self._singles_until:
            try:
                answer: jobs_pb2.ReportJobStatesResponse = await self.stub.ReportJobStates(
                    jobs_pb2.ReportJobStatesRequest(reports=requests), timeout=DEFAULT_TIMEOUT_SECONDS
                )
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise decode_error(error) from None
                log.info("jobs takes no batches of reports yet; sending them one by one")
                self._singles_until = time.monotonic() + ASK_AGAIN_SECONDS
            else:
                return [_refusal(outcome) for outcome in answer.outcomes]
        return [await self._send_one(request) for request in requests]

    async def _send_one(self, request: jobs_pb2.ReportJobStateRequest) -> ApiError | None:
        try:
            await rpc.call(self.stub.ReportJobState, request)
        except ApiError as refused:
            if refused.status >= 500:
                raise
            return refused
        return None


def _refusal(outcome: jobs_pb2.ReportOutcome) -> ApiError | None:
    return ApiError(outcome.error_code, outcome.error_message) if outcome.error_code else None
