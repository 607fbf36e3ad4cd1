"""The Jobs gRPC service: turns requests into use-case calls and records into messages."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import datetime

import grpc

from printcloud.core.errors import ApiError
from printcloud.core.ids import parse_uuid
from printcloud.core.job_upload import read_upload
from printcloud.core.paging import MAX_LIMIT, PageRequest, page_info_fields
from printcloud.core.scope import scope_from_proto
from printcloud.core.timeutil import parse_iso
from printcloud.jobs import protos
from printcloud.jobs.domain.idempotency import checked_claim
from printcloud.jobs.domain.states import STATES
from printcloud.jobs.domain.submission import Submission
from printcloud.jobs.persistence.repository import JobFilters
from printcloud.jobs.service import JobService
from printcloud.jobs.transport.timer_requests import fire_due_timers_rpc
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc


def _page(page: common_pb2.PageRequest) -> PageRequest:
    try:
        parsed = PageRequest.from_proto(page)
    except ValueError:
        raise ApiError("invalid_request", "`after` must be the `nextCursor` of a previous page.") from None
    # from_proto trusts the gateway's checks; the service does not.
    if not 1 <= parsed.limit <= MAX_LIMIT:
        raise ApiError("invalid_request", f"`limit` must be an integer from 1 to {MAX_LIMIT}.")
    if parsed.dir not in ("asc", "desc"):
        raise ApiError("invalid_request", "`dir` must be `asc` or `desc`.")
    return parsed


def _id_filter(filters: jobs_pb2.JobFilters, field: str) -> uuid.UUID | None:
    if not filters.HasField(field):
        return None
    parsed = parse_uuid(getattr(filters, field))
    if parsed is None:
        raise ApiError("invalid_request", f"The `{field}` filter must be a UUID.")
    return parsed


def _time_filter(filters: jobs_pb2.JobFilters, field: str) -> datetime | None:
    if not filters.HasField(field):
        return None
    parsed = parse_iso(getattr(filters, field))
    if parsed is None:
        raise ApiError("invalid_request", f"The `{field}` filter must be an ISO 8601 date-time with a time zone.")
    return parsed


def _filters(filters: jobs_pb2.JobFilters) -> JobFilters:
    state = filters.state if filters.HasField("state") else None
    if state is not None and state not in STATES:
        raise ApiError("invalid_request", "The `state` filter must be one of " + ", ".join(STATES) + ".")
    return JobFilters(
        printer_id=_id_filter(filters, "printer_id"),
        computer_id=_id_filter(filters, "computer_id"),
        state=state,
        created_from=_time_filter(filters, "created_from"),
        created_to=_time_filter(filters, "created_to"),
    )


def _submission(request: jobs_pb2.CreateJobRequest, document: bytearray | None) -> Submission:
    return Submission(
        printer_id=request.printer_id,
        title=request.title,
        content_type=request.content_type,
        data=document,
        url=request.url if request.HasField("url") else None,
        source=request.source,
        qty=request.qty,
        expire_after=request.expire_after,
        options_json=request.options_json,
        reprint_of=request.reprint_of if request.HasField("reprint_of") else None,
        authentication=(
            (request.authentication.user, getattr(request.authentication, "pass"))
            if request.HasField("authentication")
            else None
        ),
    )


class JobsServicer(jobs_pb2_grpc.JobsServicer):
    def __init__(self, jobs: JobService) -> None:
        self.jobs = jobs

    async def CreateJob(
        self, parts: AsyncIterator[jobs_pb2.CreateJobPart], context: grpc.aio.ServicerContext
    ) -> jobs_pb2.CreateJobResponse:
        request, document = await read_upload(parts)
        quota = request.live_print_quota if request.HasField("live_print_quota") else None
        claim = (
            checked_claim(request.idempotency_key, request.request_fingerprint)
            if request.HasField("idempotency_key")
            else None
        )
        created = await self.jobs.create_job(
            scope_from_proto(request.scope), _submission(request, document), quota, claim
        )
        return jobs_pb2.CreateJobResponse(job=created.job, replayed=created.replayed)

    async def GetUsage(self, request: jobs_pb2.GetUsageRequest, context: grpc.aio.ServicerContext) -> jobs_pb2.Usage:
        return protos.usage(await self.jobs.usage(scope_from_proto(request.scope)))

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: grpc.aio.ServicerContext) -> jobs_pb2.PrintJob:
        return protos.print_job(await self.jobs.get_job(scope_from_proto(request.scope), request.id))

    async def ListJobs(self, request: jobs_pb2.ListJobsRequest, context: grpc.aio.ServicerContext) -> jobs_pb2.JobPage:
        page = await self.jobs.list_jobs(
            scope_from_proto(request.scope), _filters(request.filters), _page(request.page)
        )
        return jobs_pb2.JobPage(
            items=[protos.print_job(job) for job in page.items], page=common_pb2.PageInfo(**page_info_fields(page))
        )

    async def ListJobStateChanges(
        self, request: jobs_pb2.GetJobRequest, context: grpc.aio.ServicerContext
    ) -> jobs_pb2.JobStateChangeList:
        changes = await self.jobs.list_state_changes(scope_from_proto(request.scope), request.id)
        return jobs_pb2.JobStateChangeList(items=[protos.job_state_change(change) for change in changes])

    async def CancelJob(self, request: jobs_pb2.GetJobRequest, context: grpc.aio.ServicerContext) -> jobs_pb2.PrintJob:
        return protos.print_job(await self.jobs.cancel_job(scope_from_proto(request.scope), request.id))

    async def ClaimDelivery(
        self, request: jobs_pb2.ClaimDeliveryRequest, context: grpc.aio.ServicerContext
    ) -> jobs_pb2.ClaimDeliveryResponse:
        resend_of = request.resend_of if request.HasField("resend_of") else None
        claimed, job = await self.jobs.claim_delivery(request.computer_id, request.job_id, resend_of)
        return jobs_pb2.ClaimDeliveryResponse(claimed=claimed, delivery=protos.job_delivery(job))

    async def ReportJobState(
        self, request: jobs_pb2.ReportJobStateRequest, context: grpc.aio.ServicerContext
    ) -> jobs_pb2.PrintJob:
        message = request.message if request.HasField("message") else None
        job = await self.jobs.report_state(request.computer_id, request.job_id, request.state, message)
        return protos.print_job(job)

    async def ReadJobFile(
        self, request: jobs_pb2.AgentJobRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[jobs_pb2.FileChunk]:
        first = True
        async for chunk, file_size in self.jobs.read_file(request.computer_id, request.job_id):
            yield jobs_pb2.FileChunk(data=chunk, file_size=file_size) if first else jobs_pb2.FileChunk(data=chunk)
            first = False

    async def ListPendingJobs(
        self, request: jobs_pb2.ListPendingJobsRequest, context: grpc.aio.ServicerContext
    ) -> jobs_pb2.JobDeliveryList:
        jobs = await self.jobs.list_pending(request.computer_id)
        return jobs_pb2.JobDeliveryList(items=[protos.job_delivery(job) for job in jobs])

    async def FireDueTimers(
        self, request: jobs_pb2.FireDueTimersRequest, context: grpc.aio.ServicerContext
    ) -> jobs_pb2.FireDueTimersResponse:
        return await fire_due_timers_rpc(self.jobs, request)
