"""A gRPC call that meets the database down or its backend ended answers 503
`service_unavailable`, which callers and API clients retry, not a 500: the request was fine, and
the same call passes once the database is back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.db.url import connect
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc
from tests.support.grpc_server import serving


class JobsOnADatabase(jobs_pb2_grpc.JobsServicer):
    """Reads a job's id from PostgreSQL on a connection whose backend another session ended."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: rpc.ServicerContext) -> jobs_pb2.PrintJob:
        connection = await connect(self.database_url)
        try:
            if request.id == "backend ended":
                killer = await connect(self.database_url)
                try:
                    pid = connection.get_server_pid()
                    await killer.execute("SELECT pg_terminate_backend($1)", pid)
                    # The backend ends on its own schedule; the query must meet it ended.
                    gone = "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)"
                    async with asyncio.timeout(10):
                        while not await killer.fetchval(gone, pid):
                            await asyncio.sleep(0.01)
                finally:
                    await killer.close()
            if request.id == "bug":
                await connection.fetchval("SELECT no_such_column FROM pg_class")
            return jobs_pb2.PrintJob(id=str(await connection.fetchval("SELECT $1::text", request.id)))
        finally:
            connection.terminate()


@pytest.fixture
async def jobs(database_url: str) -> AsyncIterator[jobs_pb2_grpc.JobsStub]:
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, JobsOnADatabase(database_url)) as channel:
        yield jobs_pb2_grpc.JobsStub(channel)


async def test_a_call_whose_database_backend_was_ended_answers_service_unavailable(
    jobs: jobs_pb2_grpc.JobsStub,
) -> None:
    assert (await rpc.call(jobs.GetJob, jobs_pb2.GetJobRequest(id="fine"))).id == "fine"
    with pytest.raises(ApiError) as ended:
        await rpc.call(jobs.GetJob, jobs_pb2.GetJobRequest(id="backend ended"))
    assert (ended.value.code, ended.value.status) == ("service_unavailable", 503)


async def test_a_database_refusing_connections_answers_service_unavailable() -> None:
    unreachable = "postgresql://printcloud@127.0.0.1:9/printcloud"
    async with serving(jobs_pb2_grpc.add_JobsServicer_to_server, JobsOnADatabase(unreachable)) as channel:
        with pytest.raises(ApiError) as refused:
            await rpc.call(jobs_pb2_grpc.JobsStub(channel).GetJob, jobs_pb2.GetJobRequest(id="fine"))
    assert refused.value.code == "service_unavailable"


async def test_a_bad_statement_is_still_an_internal_error(jobs: jobs_pb2_grpc.JobsStub) -> None:
    with pytest.raises(ApiError) as bug:
        await rpc.call(jobs.GetJob, jobs_pb2.GetJobRequest(id="bug"))
    assert bug.value.code == "internal_error"
