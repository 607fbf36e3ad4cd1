"""The jobs service in memory: jobs per organization and mode, their files, state changes and
delivery claims, with the real service's rules for cancel, claims and downloads."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError, not_found
from printcloud.contracts.job_upload import read_small_upload, read_upload
from printcloud.core.ids import new_id
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc
from tests.support.fakes.paging import page_of
from tests.support.fakes.recorder import Recorder

NOW = "2030-01-01T00:00:00.000Z"
WITH_AGENT = ("sent", "received", "printing")  # the states in which the agent may download the file
CANCELLABLE = ("queued", "sent")
AGENT_REPORTED = ("received", "printing", "done", "error")


@dataclass
class FakeJob:
    job: jobs_pb2.PrintJob
    data: bytes = b""
    printer_name: str = "virtual-office"
    send_count: int = 0
    states: list[str] = field(default_factory=list)

    def delivery(self) -> jobs_pb2.JobDelivery:
        job = self.job
        return jobs_pb2.JobDelivery(
            job_id=job.id, computer_id=job.computer_id, printer_id=job.printer_id, title=job.title,
            content_type=job.content_type, qty=job.qty, options_json=job.options_json,
            file_sha256=job.file_sha256, file_size=job.file_size, state=job.state, printer_name=self.printer_name,
        )  # fmt: skip

    def move(self, state: str) -> None:
        self.job.state = state
        self.states.append(state)


class FakeJobs(jobs_pb2_grpc.JobsServicer):
    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder or Recorder()
        self.jobs: dict[str, FakeJob] = {}
        self.documents: list[bytes | bytearray | None] = []  # each CreateJob's document as received
        self.usage = jobs_pb2.Usage(
            period_start="2030-01-01T00:00:00.000Z", period_end="2030-02-01T00:00:00.000Z", live_prints=7,
            day_start="2030-01-15T00:00:00.000Z", day_end="2030-01-16T00:00:00.000Z", test_jobs_today=3,
            test_jobs_per_day=500,
        )  # fmt: skip
        # FireDueTimers answers these in turn (an exception is raised), then empty batches.
        self.timer_answers: list[jobs_pb2.FireDueTimersResponse | BaseException] = []
        self.timers_drained = asyncio.Event()
        # ReadJobFile's chunk size: small, so that even a short file arrives in several chunks.
        self.chunk_bytes = 4

    @property
    def requests(self) -> list[Any]:
        return self.recorder.requests

    @property
    def metadata(self) -> list[dict[str, str]]:
        return self.recorder.metadata

    def add_job(
        self,
        organization_id: str,
        mode: str,
        printer_id: str,
        *,
        data: bytes = b"",
        printer_name: str = "virtual-office",
        **fields: Any,
    ) -> jobs_pb2.PrintJob:
        shown = {
            "id": new_id(), "computer_id": new_id(), "title": "t", "content_type": "pdf_base64", "source": "api",
            "qty": 1, "options_json": "{}", "expire_after": 86400, "expires_at": NOW, "state": "queued",
            "created_at": NOW, "file_sha256": hashlib.sha256(data).hexdigest(), "file_size": len(data),
        }  # fmt: skip
        job = jobs_pb2.PrintJob(
            organization_id=organization_id, mode=mode, printer_id=printer_id, **{**shown, **fields}
        )
        self.jobs[job.id] = FakeJob(job, data, printer_name, states=[job.state])
        return job

    def states(self, job_id: str) -> list[str]:
        """The states the agent reported for the job, in order."""
        return [r.state for r in self.recorder.named("ReportJobState") if r.job_id == job_id]

    def _scoped(self, job_id: str, scope: common_pb2.Scope) -> FakeJob:
        found = self.jobs.get(job_id)
        if found is None or (found.job.organization_id, found.job.mode) != (scope.organization_id, scope.mode):
            raise not_found("print job")
        return found

    def _agents(self, job_id: str, computer_id: str) -> FakeJob:
        found = self.jobs.get(job_id)
        if found is None or found.job.computer_id != computer_id:
            raise not_found("print job")
        return found

    async def CreateJob(self, parts: Any, context: Any) -> Any:
        return self._create(*await read_upload(parts), context)

    async def CreateSmallJob(self, message: jobs_pb2.CreateSmallJobRequest, context: Any) -> Any:
        return self._create(*read_small_upload(message), context)

    def _create(self, request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | None, context: Any) -> Any:
        """Either call is the one operation, recorded as `CreateJob`."""
        self.documents.append(document)
        self.recorder.add("CreateJob", request, context)
        data = bytes(document or b"")
        job = self.add_job(
            request.scope.organization_id, request.scope.mode, request.printer_id, data=data, title=request.title,
            qty=request.qty, source=request.source, content_type=request.content_type or "pdf_base64",
            options_json=request.options_json or "{}", expire_after=request.expire_after or 86400,
        )  # fmt: skip
        return jobs_pb2.CreateJobResponse(job=job)

    async def ForgetPrinters(self, request: jobs_pb2.ForgetPrintersRequest, context: Any) -> Any:
        self.recorder.add("ForgetPrinters", request, context)
        return common_pb2.Empty()

    async def GetUsage(self, request: jobs_pb2.GetUsageRequest, context: Any) -> Any:
        self.recorder.add("GetUsage", request, context)
        return self.usage

    async def GetJob(self, request: jobs_pb2.GetJobRequest, context: Any) -> Any:
        self.recorder.add("GetJob", request, context)
        return self._scoped(request.id, request.scope).job

    async def ShowJob(self, request: jobs_pb2.GetJobRequest, context: Any) -> Any:
        self.recorder.add("ShowJob", request, context)
        return representations.representation(representations.print_job(self._scoped(request.id, request.scope).job))

    async def ListJobs(self, request: jobs_pb2.ListJobsRequest, context: Any) -> Any:
        self.recorder.add("ListJobs", request, context)
        scope, filters = request.scope, request.filters
        jobs = [
            j.job
            for j in self.jobs.values()
            if (j.job.organization_id, j.job.mode) == (scope.organization_id, scope.mode)
        ]
        for name in ("printer_id", "computer_id", "state"):
            if filters.HasField(name):
                jobs = [job for job in jobs if getattr(job, name) == getattr(filters, name)]
        if filters.HasField("title_contains"):
            jobs = [job for job in jobs if filters.title_contains.strip().lower() in job.title.lower()]
        items, info = page_of(jobs, request.page)
        return jobs_pb2.JobPage(items=items, page=info)

    async def ListJobStateChanges(self, request: jobs_pb2.GetJobRequest, context: Any) -> Any:
        self.recorder.add("ListJobStateChanges", request, context)
        found = self._scoped(request.id, request.scope)
        changes = [
            jobs_pb2.JobStateChange(id=new_id(), state=state, actor="api" if n == 0 else "agent", created_at=NOW)
            for n, state in enumerate(found.states)
        ]
        return jobs_pb2.JobStateChangeList(items=changes)

    async def CancelJob(self, request: jobs_pb2.GetJobRequest, context: Any) -> Any:
        self.recorder.add("CancelJob", request, context)
        found = self._scoped(request.id, request.scope)
        if found.job.state not in CANCELLABLE:
            raise ApiError("not_cancellable", f"The job is {found.job.state}; the agent already received it.")
        found.move("cancelled")
        return found.job

    async def ClaimDelivery(self, request: jobs_pb2.ClaimDeliveryRequest, context: Any) -> Any:
        """A first push of a queued job, or the resend numbered `resend_of` of a sent one; `Claimed`
        is recorded for the claims that let a push through."""
        self.recorder.add("ClaimDelivery", request, context)
        found = self._agents(request.job_id, request.computer_id)
        first = not request.HasField("resend_of") and found.job.state == "queued"
        resend = request.HasField("resend_of") and found.job.state == "sent" and found.send_count == request.resend_of
        if first or resend:
            self.recorder.add("Claimed", request)
            found.send_count += 1
            if first:
                found.move("sent")
        return jobs_pb2.ClaimDeliveryResponse(claimed=first or resend, delivery=found.delivery())

    async def ClaimDeliveries(self, request: jobs_pb2.ClaimDeliveriesRequest, context: Any) -> Any:
        """Each claim as `ClaimDelivery` takes it (recorded and failed by that name)."""
        self.recorder.add("ClaimDeliveries", request, context)
        outcomes = []
        for claim in request.claims:
            try:
                answer = await self.ClaimDelivery(claim, None)
            except ApiError as refused:
                outcomes.append(jobs_pb2.ClaimOutcome(error_code=refused.code, error_message=refused.message))
            else:
                outcomes.append(jobs_pb2.ClaimOutcome(answer=answer))
        return jobs_pb2.ClaimDeliveriesResponse(outcomes=outcomes)

    async def ReportJobState(self, request: jobs_pb2.ReportJobStateRequest, context: Any) -> Any:
        self.recorder.add("ReportJobState", request, context)
        if request.state not in AGENT_REPORTED:
            raise ApiError("invalid_request", "An agent reports one of " + ", ".join(AGENT_REPORTED) + ".")
        found = self._agents(request.job_id, request.computer_id)
        found.move(request.state)
        return found.job

    async def ReportJobStates(self, request: jobs_pb2.ReportJobStatesRequest, context: Any) -> Any:
        """Each report as `ReportJobState` takes it (recorded and failed by that name)."""
        self.recorder.add("ReportJobStates", request, context)
        outcomes = []
        for report in request.reports:
            try:
                await self.ReportJobState(report, None)
            except ApiError as refused:
                outcomes.append(jobs_pb2.ReportOutcome(error_code=refused.code, error_message=refused.message))
            else:
                outcomes.append(jobs_pb2.ReportOutcome())
        return jobs_pb2.ReportJobStatesResponse(outcomes=outcomes)

    async def ListPendingJobs(self, request: jobs_pb2.ListPendingJobsRequest, context: Any) -> Any:
        self.recorder.add("ListPendingJobs", request, context)
        queued = [
            j.delivery()
            for j in self.jobs.values()
            if j.job.computer_id == request.computer_id and j.job.state == "queued"
        ]
        return jobs_pb2.JobDeliveryList(items=queued)

    async def ReadJobFile(self, request: jobs_pb2.AgentJobRequest, context: Any) -> AsyncIterator[Any]:
        self.recorder.add("ReadJobFile", request, context)
        found = self._agents(request.job_id, request.computer_id)
        if found.job.state not in WITH_AGENT:
            raise ApiError("conflict", f"The job is {found.job.state}; its file is not with an agent.")
        data = found.data
        yield jobs_pb2.FileChunk(data=data[: self.chunk_bytes], file_size=len(data))
        for start in range(self.chunk_bytes, len(data), self.chunk_bytes):
            yield jobs_pb2.FileChunk(data=data[start : start + self.chunk_bytes])

    async def ReadStoredFile(self, request: jobs_pb2.GetJobRequest, context: Any) -> AsyncIterator[Any]:
        """The file whatever the job's state: the fake keeps files for ever."""
        self.recorder.add("ReadStoredFile", request, context)
        data = self._scoped(request.id, request.scope).data
        yield jobs_pb2.FileChunk(data=data[: self.chunk_bytes], file_size=len(data))
        for start in range(self.chunk_bytes, len(data), self.chunk_bytes):
            yield jobs_pb2.FileChunk(data=data[start : start + self.chunk_bytes])

    async def FireDueTimers(self, request: jobs_pb2.FireDueTimersRequest, context: Any) -> Any:
        self.recorder.add("FireDueTimers", request, context)
        if not self.timer_answers:
            self.timers_drained.set()
            return jobs_pb2.FireDueTimersResponse()
        answer = self.timer_answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer
