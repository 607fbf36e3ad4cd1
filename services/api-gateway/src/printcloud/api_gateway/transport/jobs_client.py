"""Calls of the jobs service that the gateway makes beside a route's own call."""

from __future__ import annotations

import grpc

from printcloud.core.rpc.channels import DEFAULT_TIMEOUT_SECONDS
from printcloud.core.rpc.wire import decode_error
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc


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
