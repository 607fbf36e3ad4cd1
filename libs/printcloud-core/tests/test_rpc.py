"""gRPC calls of every kind carry the request id and trace context, and a service's `ApiError`
comes back as itself, over a real server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import read_upload, upload_parts
from printcloud.core import rpc
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, request_id_var
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.grpc_server import serving


class RecordingJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self) -> None:
        self.request_ids: dict[str, str | bytes | None] = {}

    def _record(self, name: str, context: rpc.ServicerContext) -> None:
        self.request_ids[name] = dict(context.invocation_metadata() or ()).get(REQUEST_ID_HEADER)

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        self._record("unary", context)
        raise ApiError("not_found", "No such print job.")

    async def ReadJobFile(
        self, request: jobs_pb2.AgentJobRequest, context: rpc.ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        self._record("server stream", context)
        yield jobs_pb2.FileChunk(data=b"%PDF-")

    async def CreateJob(
        self, parts: AsyncIterator[jobs_pb2.CreateJobPart], context: rpc.ServicerContext
    ) -> jobs_pb2.CreateJobResponse:
        self._record("client stream", context)
        request, document = await read_upload(parts)
        return jobs_pb2.CreateJobResponse(job=jobs_pb2.PrintJob(title=request.title, file_size=len(document or b"")))


@pytest.fixture
async def jobs() -> AsyncIterator[tuple[RecordingJobs, jobs_pb2_grpc.JobsStub]]:
    servicer = RecordingJobs()
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, servicer) as channel:
        yield servicer, jobs_pb2_grpc.JobsStub(channel)


async def test_every_kind_of_call_carries_the_request_id(jobs: tuple[RecordingJobs, jobs_pb2_grpc.JobsStub]) -> None:
    servicer, stub = jobs
    token = request_id_var.set("req-123")
    try:
        with pytest.raises(ApiError) as raised:
            await rpc.call(stub.GetJob, jobs_pb2.GetJobRequest(id="x"))
        chunks = [chunk.data async for chunk in rpc.stream(stub.ReadJobFile, jobs_pb2.AgentJobRequest())]
        document = b"%PDF-" + b"x" * 3_000_000
        created = await rpc.call(stub.CreateJob, upload_parts(jobs_pb2.CreateJobRequest(title="t"), document))
    finally:
        request_id_var.reset(token)
    assert raised.value.code == "not_found"
    assert chunks == [b"%PDF-"]
    assert (created.job.title, created.job.file_size) == ("t", len(document))
    assert servicer.request_ids == {"unary": "req-123", "server stream": "req-123", "client stream": "req-123"}
