"""The Jobs gRPC service: parses requests at the edge with `printcloud.core`, calls the use
cases and maps their results to messages."""

from __future__ import annotations

from collections.abc import AsyncIterator

from printcloud.contracts import representations
from printcloud.contracts.errors import invalid
from printcloud.contracts.job_upload import read_small_upload, read_upload
from printcloud.core.db.paging import PageRequest, page_info_to_proto
from printcloud.core.ids import resource_id, uuid_field
from printcloud.core.rpc import ServicerContext
from printcloud.core.rpc.batches import each_in_order
from printcloud.core.scope import scope_from_proto
from printcloud.jobs.domain.events import published_job
from printcloud.jobs.domain.idempotency import checked_claim
from printcloud.jobs.transport import mapping
from printcloud.jobs.use_cases.deliveries import DeliveryClaim
from printcloud.jobs.use_cases.print_jobs import JobService, StateReport
from printcloud.jobs.use_cases.timers import JobTimers
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc

JOB = "print job"
COMPUTER = "computer"
MAX_TIMERS_PER_CALL = 1000


class JobsServicer(jobs_pb2_grpc.JobsServicer):
    def __init__(self, jobs: JobService, timers: JobTimers) -> None:
        self.jobs = jobs
        self.timers = timers

    async def CreateJob(
        self, parts: AsyncIterator[jobs_pb2.CreateJobPart], context: ServicerContext
    ) -> jobs_pb2.CreateJobResponse:
        request, document = await read_upload(parts)
        return await self._create(request, document)

    async def CreateSmallJob(
        self, message: jobs_pb2.CreateSmallJobRequest, context: ServicerContext
    ) -> jobs_pb2.CreateJobResponse:
        return await self._create(*read_small_upload(message))

    async def _create(
        self, request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | None
    ) -> jobs_pb2.CreateJobResponse:
        quota = request.live_print_quota if request.HasField("live_print_quota") else None
        claim = (
            checked_claim(request.idempotency_key, request.request_fingerprint)
            if request.HasField("idempotency_key")
            else None
        )
        created = await self.jobs.create_job(
            scope_from_proto(request.scope), mapping.submission(request, document), quota, claim
        )
        return jobs_pb2.CreateJobResponse(job=created.job, replayed=created.replayed)

    async def ForgetPrinters(
        self, request: jobs_pb2.ForgetPrintersRequest, context: ServicerContext
    ) -> common_pb2.Empty:
        await self.jobs.forget_printers(scope_from_proto(request.scope))
        return common_pb2.Empty()

    async def GetUsage(self, request: jobs_pb2.GetUsageRequest, context: ServicerContext) -> jobs_pb2.Usage:
        return mapping.usage(await self.jobs.usage(scope_from_proto(request.scope)))

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: ServicerContext) -> jobs_pb2.PrintJob:
        shown = await self.jobs.get_job(scope_from_proto(request.scope), resource_id(request.id, JOB))
        return published_job(shown.job, shown.waiting)

    async def ShowJob(self, request: jobs_pb2.GetJobRequest, context: ServicerContext) -> common_pb2.Representation:
        job = await self.GetJob(request, context)
        return representations.representation(representations.print_job(job))

    async def ListJobs(self, request: jobs_pb2.ListJobsRequest, context: ServicerContext) -> jobs_pb2.JobPage:
        scope = scope_from_proto(request.scope)
        filters = mapping.job_filters(request.filters)
        page = await self.jobs.list_jobs(scope, filters, PageRequest.from_proto(request.page))
        items = [published_job(shown.job, shown.waiting) for shown in page.items]
        return jobs_pb2.JobPage(items=items, page=page_info_to_proto(page))

    async def ListJobStateChanges(
        self, request: jobs_pb2.GetJobRequest, context: ServicerContext
    ) -> jobs_pb2.JobStateChangeList:
        scope = scope_from_proto(request.scope)
        changes = await self.jobs.list_state_changes(scope, resource_id(request.id, JOB))
        return jobs_pb2.JobStateChangeList(items=[mapping.job_state_change(change) for change in changes])

    async def CancelJob(self, request: jobs_pb2.GetJobRequest, context: ServicerContext) -> jobs_pb2.PrintJob:
        job = await self.jobs.cancel_job(scope_from_proto(request.scope), resource_id(request.id, JOB))
        return published_job(job)

    async def ClaimDelivery(
        self, request: jobs_pb2.ClaimDeliveryRequest, context: ServicerContext
    ) -> jobs_pb2.ClaimDeliveryResponse:
        return mapping.claim_answer(await self.jobs.claim_delivery(_delivery_claim(request)))

    async def ClaimDeliveries(
        self, request: jobs_pb2.ClaimDeliveriesRequest, context: ServicerContext
    ) -> jobs_pb2.ClaimDeliveriesResponse:
        answers = await each_in_order(request.claims, "claims", _delivery_claim, self.jobs.claim_deliveries)
        outcomes = [mapping.claim_outcome(answer) for answer in answers]
        return jobs_pb2.ClaimDeliveriesResponse(outcomes=outcomes)

    async def ReportJobState(
        self, request: jobs_pb2.ReportJobStateRequest, context: ServicerContext
    ) -> jobs_pb2.PrintJob:
        message = request.message if request.HasField("message") else None
        job = await self.jobs.report_state(
            resource_id(request.computer_id, COMPUTER), resource_id(request.job_id, JOB), request.state, message
        )
        return published_job(job)

    async def ReportJobStates(
        self, request: jobs_pb2.ReportJobStatesRequest, context: ServicerContext
    ) -> jobs_pb2.ReportJobStatesResponse:
        answered = await each_in_order(request.reports, "reports", _state_report, self.jobs.report_states)
        return jobs_pb2.ReportJobStatesResponse(outcomes=[mapping.report_outcome(outcome) for outcome in answered])

    async def ReadJobFile(
        self, request: jobs_pb2.AgentJobRequest, context: ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        chunks = self.jobs.read_file(resource_id(request.computer_id, COMPUTER), resource_id(request.job_id, JOB))
        async for chunk in _file_chunks(chunks):
            yield chunk

    async def ReadStoredFile(
        self, request: jobs_pb2.GetJobRequest, context: ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        chunks = self.jobs.read_stored_file(scope_from_proto(request.scope), resource_id(request.id, JOB))
        async for chunk in _file_chunks(chunks):
            yield chunk

    async def ListPendingJobs(
        self, request: jobs_pb2.ListPendingJobsRequest, context: ServicerContext
    ) -> jobs_pb2.JobDeliveryList:
        jobs = await self.jobs.list_pending(uuid_field(request.computer_id, "computer_id"))
        return jobs_pb2.JobDeliveryList(items=[mapping.job_delivery(job) for job in jobs])

    async def FireDueTimers(
        self, request: jobs_pb2.FireDueTimersRequest, context: ServicerContext
    ) -> jobs_pb2.FireDueTimersResponse:
        if not 1 <= request.limit <= MAX_TIMERS_PER_CALL:
            raise invalid(f"`limit` must be from 1 to {MAX_TIMERS_PER_CALL}.")
        return mapping.timers_fired(await self.timers.fire_due(request.limit))


async def _file_chunks(chunks: AsyncIterator[tuple[bytes, int]]) -> AsyncIterator[jobs_pb2.FileChunk]:
    """The file's size on the first message only."""
    first = True
    async for chunk, file_size in chunks:
        yield jobs_pb2.FileChunk(data=chunk, file_size=file_size) if first else jobs_pb2.FileChunk(data=chunk)
        first = False


def _delivery_claim(request: jobs_pb2.ClaimDeliveryRequest) -> DeliveryClaim:
    return DeliveryClaim(
        resource_id(request.computer_id, COMPUTER),
        resource_id(request.job_id, JOB),
        request.resend_of if request.HasField("resend_of") else None,
        request.content_up_to,
        dict(request.trace),
    )


def _state_report(request: jobs_pb2.ReportJobStateRequest) -> StateReport:
    return StateReport(
        resource_id(request.computer_id, COMPUTER),
        resource_id(request.job_id, JOB),
        request.state,
        request.message if request.HasField("message") else None,
        dict(request.trace),
    )
