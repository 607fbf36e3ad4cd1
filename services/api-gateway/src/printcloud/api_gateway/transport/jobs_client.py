"""Calls of the jobs service that the gateway makes beside a route's own call."""

from __future__ import annotations

import time

import grpc

from printcloud.contracts.job_upload import small_upload, upload_parts
from printcloud.core import rpc
from printcloud.core.rpc.channels import DEFAULT_TIMEOUT_SECONDS
from printcloud.core.rpc.wire import decode_error
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc

# How long the gateway sends every job on the stream after a jobs replica of an earlier release
# answered `CreateSmallJob` with UNIMPLEMENTED: its replicas are being replaced.
ASK_AGAIN_SECONDS = 60.0


async def forget_printers(jobs: jobs_pb2_grpc.JobsStub, scope: common_pb2.Scope) -> None:
    """Has jobs ask devices again for the scope's printers, once devices changed them: called before
    the route answers, so that a job created after the answer is held to the change. A jobs of the
    release before this call existed keeps nothing of printers, so during a rolling upgrade its
    `UNIMPLEMENTED` is an answer, not a failure."""
    try:
        await jobs.ForgetPrinters(jobs_pb2.ForgetPrintersRequest(scope=scope), timeout=DEFAULT_TIMEOUT_SECONDS)
    except grpc.aio.AioRpcError as error:
        if error.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise decode_error(error) from None


class JobCreation:
    """Sends a job to jobs in one message when its document fits in one slice, else on the stream;
    a jobs of the release before `CreateSmallJob` gets the stream for a while. UNIMPLEMENTED comes
    before any handler runs, so the job sent again on the stream is created once."""

    def __init__(self, jobs: jobs_pb2_grpc.JobsStub) -> None:
        self._jobs = jobs
        self._stream_until = 0.0

    async def create(
        self, request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | memoryview | None
    ) -> jobs_pb2.CreateJobResponse:
        small = small_upload(request, document) if time.monotonic() >= self._stream_until else None
        if small is not None:
            try:
                created: jobs_pb2.CreateJobResponse = await self._jobs.CreateSmallJob(
                    small, timeout=DEFAULT_TIMEOUT_SECONDS
                )
                return created
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNIMPLEMENTED:
                    raise decode_error(error) from None
                self._stream_until = time.monotonic() + ASK_AGAIN_SECONDS
        streamed: jobs_pb2.CreateJobResponse = await rpc.call(self._jobs.CreateJob, upload_parts(request, document))
        return streamed
