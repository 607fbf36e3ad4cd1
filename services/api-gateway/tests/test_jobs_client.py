"""The gateway's calls of jobs against real gRPC servers: `forget_printers`, which a jobs of the
release before (no such call) answers by keeping nothing while any other failure reaches the route
as the error it is; and `JobCreation`, which sends a small job in one message, a large one on the
stream, and everything on the stream to a jobs that has no `CreateSmallJob`."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from printcloud.api_gateway.transport.jobs_client import JobCreation, forget_printers
from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import SLICE_BYTES, read_small_upload, read_upload
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


class _Creating(jobs_pb2_grpc.JobsServicer):
    def __init__(self) -> None:
        self.created: list[tuple[str, int]] = []  # (call, document bytes)

    async def CreateJob(self, parts: Any, context: Any) -> jobs_pb2.CreateJobResponse:
        request, document = await read_upload(parts)
        self.created.append(("CreateJob", len(document or b"")))
        return jobs_pb2.CreateJobResponse(job=jobs_pb2.PrintJob(title=request.title))

    async def CreateSmallJob(self, message: jobs_pb2.CreateSmallJobRequest, context: Any) -> jobs_pb2.CreateJobResponse:
        request, document = read_small_upload(message)
        self.created.append(("CreateSmallJob", len(document or b"")))
        return jobs_pb2.CreateJobResponse(job=jobs_pb2.PrintJob(title=request.title))


def _stream_only(servicer: _Creating, server: grpc.aio.Server) -> None:
    """The jobs of the release before `CreateSmallJob`: the server knows no such method."""
    create = grpc.stream_unary_rpc_method_handler(
        servicer.CreateJob,
        request_deserializer=jobs_pb2.CreateJobPart.FromString,
        response_serializer=jobs_pb2.CreateJobResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("printcloud.v1.Jobs", {"CreateJob": create}),)
    )


REQUEST = jobs_pb2.CreateJobRequest(scope=SCOPE, title="Label")


async def test_a_small_document_goes_in_one_message_and_a_large_one_on_the_stream() -> None:
    jobs = _Creating()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        creation = JobCreation(jobs_pb2_grpc.JobsStub(channel))
        for document in (b"^XA^FDlabel^FS^XZ", b"x" * SLICE_BYTES, None, b"x" * (SLICE_BYTES + 1)):
            assert (await creation.create(REQUEST, document)).job.title == "Label"
    assert jobs.created == [
        ("CreateSmallJob", 17),
        ("CreateSmallJob", SLICE_BYTES),
        ("CreateSmallJob", 0),
        ("CreateJob", SLICE_BYTES + 1),
    ]


async def test_a_jobs_of_the_release_before_gets_every_job_on_the_stream_once() -> None:
    jobs = _Creating()
    async with serving(_stream_only, jobs) as channel:
        creation = JobCreation(jobs_pb2_grpc.JobsStub(channel))
        for _ in range(3):
            assert (await creation.create(REQUEST, b"%PDF-1.7")).job.title == "Label"
    assert jobs.created == [("CreateJob", 8)] * 3, "each job created once, on the stream"


async def test_a_failing_jobs_fails_the_creation_as_the_error_it_is() -> None:
    class _Refusing(_Creating):
        async def CreateSmallJob(self, message: jobs_pb2.CreateSmallJobRequest, context: Any) -> Any:
            refused = ApiError("printer_disabled", "The printer is not live.")
            await context.abort(grpc.StatusCode.FAILED_PRECONDITION, encode_error(refused))

    jobs = _Refusing()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, jobs) as channel:
        with pytest.raises(ApiError) as caught:
            await JobCreation(jobs_pb2_grpc.JobsStub(channel)).create(REQUEST, b"%PDF-1.7")
    assert caught.value.code == "printer_disabled"
    assert jobs.created == [], "a refusal is an answer: the job is not sent again on the stream"
