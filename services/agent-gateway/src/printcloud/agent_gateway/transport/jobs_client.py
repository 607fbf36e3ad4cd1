"""The jobs service, as the agent-gateway's use cases call it (`use_cases.jobs.Jobs`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from printcloud.agent_gateway.transport.batched_calls import BatchedCalls, refusal
from printcloud.agent_gateway.transport.mapping import job_message
from printcloud.agent_gateway.use_cases.jobs import JobFile
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.rpc.channels import DEFAULT_TIMEOUT_SECONDS
from printcloud.core.telemetry.traces import carrier_headers
from printcloud.protocol.constants import MAX_INLINE_FILE_BYTES
from printcloud.protocol.messages import Job
from printcloud.v1 import jobs_pb2, jobs_pb2_grpc


class JobsClient:
    def __init__(self, stub: jobs_pb2_grpc.JobsStub) -> None:
        self.stub = stub
        self.state_reports: BatchedCalls[jobs_pb2.ReportJobStateRequest, None] = BatchedCalls(
            "ReportJobStates", self._report_batch, self._report_one
        )
        self.claims: BatchedCalls[jobs_pb2.ClaimDeliveryRequest, jobs_pb2.ClaimDeliveryResponse] = BatchedCalls(
            "ClaimDeliveries", self._claim_batch, self._claim_one
        )

    async def report_job_state(self, computer_id: str, job_id: str, state: str, message: str | None) -> None:
        request = jobs_pb2.ReportJobStateRequest(
            computer_id=computer_id, job_id=job_id, state=state, message=message, trace=carrier_headers()
        )
        await self.state_reports.call(request)

    async def claim_delivery(self, computer_id: str, job_id: str, resend_of: int | None) -> Job | None:
        request = jobs_pb2.ClaimDeliveryRequest(
            computer_id=computer_id,
            job_id=job_id,
            resend_of=resend_of,
            content_up_to=MAX_INLINE_FILE_BYTES,
            trace=carrier_headers(),
        )
        claim = await self.claims.call(request)
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

    # --- the calls that batches make ---------------------------------------------------------

    async def _report_batch(self, reports: list[jobs_pb2.ReportJobStateRequest]) -> list[ApiError | None]:
        answer: jobs_pb2.ReportJobStatesResponse = await self.stub.ReportJobStates(
            jobs_pb2.ReportJobStatesRequest(reports=reports), timeout=DEFAULT_TIMEOUT_SECONDS
        )
        return [refusal(outcome.error_code, outcome.error_message) for outcome in answer.outcomes]

    async def _report_one(self, report: jobs_pb2.ReportJobStateRequest) -> None:
        await rpc.call(self.stub.ReportJobState, report)

    async def _claim_batch(
        self, claims: list[jobs_pb2.ClaimDeliveryRequest]
    ) -> list[jobs_pb2.ClaimDeliveryResponse | ApiError]:
        answer: jobs_pb2.ClaimDeliveriesResponse = await self.stub.ClaimDeliveries(
            jobs_pb2.ClaimDeliveriesRequest(claims=claims), timeout=DEFAULT_TIMEOUT_SECONDS
        )
        return [refusal(outcome.error_code, outcome.error_message) or outcome.answer for outcome in answer.outcomes]

    async def _claim_one(self, claim: jobs_pb2.ClaimDeliveryRequest) -> jobs_pb2.ClaimDeliveryResponse:
        answer: jobs_pb2.ClaimDeliveryResponse = await rpc.call(self.stub.ClaimDelivery, claim)
        return answer
