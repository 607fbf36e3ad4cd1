"""The jobs service, as the agent-gateway's use cases call it (`use_cases.jobs.Jobs`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from printcloud.agent_gateway.transport.mapping import job_message
from printcloud.agent_gateway.transport.state_report_batches import StateReportBatches
from printcloud.agent_gateway.use_cases.jobs import JobFile
from printcloud.core import rpc
from printcloud.core.telemetry.traces import carrier_headers
from printcloud.protocol.constants import MAX_INLINE_FILE_BYTES
from printcloud.protocol.messages import Job
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc


class JobsClient:
    def __init__(self, stub: jobs_pb2_grpc.JobsStub) -> None:
        self.stub = stub
        self.state_reports = StateReportBatches(stub)

    async def report_job_state(self, computer_id: str, job_id: str, state: str, message: str | None) -> None:
        request = jobs_pb2.ReportJobStateRequest(
            computer_id=computer_id, job_id=job_id, state=state, message=message, trace=carrier_headers()
        )
        await self.state_reports.report(request)

    async def claim_delivery(self, computer_id: str, job_id: str, resend_of: int | None) -> Job | None:
        request = jobs_pb2.ClaimDeliveryRequest(
            computer_id=computer_id, job_id=job_id, resend_of=resend_of, content_up_to=MAX_INLINE_FILE_BYTES
        )
        claim: jobs_pb2.ClaimDeliveryResponse = await rpc.call(self.stub.ClaimDelivery, request)
        return job_message(claim.delivery) if claim.claimed else None

    async def pending_jobs(self, computer_id: str) -> list[str]:
        request = jobs_pb2.ListPendingJobsRequest(computer_id=computer_id)
        pending: jobs_pb2.JobDeliveryList = await rpc.call(self.stub.ListPendingJobs, request)
        return [job.job_id for job in pending.items]

    async def read_job_file(self, computer_id: str, job_id: str) -> JobFile:
        chunks = rpc.stream(self.stub.ReadJobFile, jobs_pb2.AgentJobRequest(computer_id=computer_id, job_id=job_id))
        # The first chunk is read before answering so that a refusal still gets a proper status.
        first: jobs_pb2.FileChunk = await anext(chunks)

        async def data() -> AsyncIterator[bytes]:
            yield first.data
            async for chunk in chunks:
                yield chunk.data

        return JobFile(first.file_size, data())
