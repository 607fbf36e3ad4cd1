"""`forget_printers` against real gRPC servers: a jobs of the release before, which has no such
call, answers it by keeping nothing; any other failure reaches the route as the error it is."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from printcloud.api_gateway.transport.jobs_client import forget_printers
from printcloud.contracts.errors import ApiError
from printcloud.core.rpc.wire import encode_error
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc
from tests.support.grpc_server import serving

SCOPE = common_pb2.Scope(organization_id="018f0000-0000-7000-8000-0000000000a1", mode="test")


class _Unavailable(jobs_pb2_grpc.JobsServicer):
    async def ForgetPrinters(self, request: jobs_pb2.ForgetPrintersRequest, context: Any) -> common_pb2.Empty:
        busy = ApiError("service_unavailable", "A backing service is unavailable; retry with backoff.")
        await context.abort(grpc.StatusCode.UNAVAILABLE, encode_error(busy))
        raise AssertionError("abort raises")


def _registering_nothing(servicer: object, server: grpc.aio.Server) -> None:
    """A server that knows no such method, as the release before answers it."""


async def test_a_jobs_without_the_call_is_answered_by_keeping_nothing() -> None:
    async with serving(_registering_nothing, object()) as channel:
        await forget_printers(jobs_pb2_grpc.JobsStub(channel), SCOPE)


async def test_a_failing_jobs_fails_the_route() -> None:
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, _Unavailable()) as channel:
        with pytest.raises(ApiError) as caught:
            await forget_printers(jobs_pb2_grpc.JobsStub(channel), SCOPE)
    assert caught.value.code == "service_unavailable"
