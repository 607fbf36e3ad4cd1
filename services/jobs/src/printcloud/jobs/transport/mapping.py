"""Jobs' gRPC messages from records and domain values, and requests into domain values. A job's
`PrintJob` is `domain.events.published_job`: responses, events and stored answers share it."""

from __future__ import annotations

import json
from collections import Counter
from typing import Literal

from printcloud.contracts.errors import ApiError
from printcloud.core.db import list_filters
from printcloud.core.db.database import AnyRow
from printcloud.core.db.list_filters import JobFilters
from printcloud.core.timeutil import isoformat
from printcloud.jobs.domain.events import present
from printcloud.jobs.domain.job import Job
from printcloud.jobs.domain.submission import Submission, options_to_apply
from printcloud.jobs.domain.timers import TimerAction
from printcloud.jobs.domain.usage import UsageCounts
from printcloud.jobs.use_cases.deliveries import Claim
from printcloud.v1 import jobs_pb2


def job_state_change(change: AnyRow) -> jobs_pb2.JobStateChange:
    return jobs_pb2.JobStateChange(
        id=str(change.id),
        state=change.state,
        actor=change.actor,
        created_at=isoformat(change.created_at),
        **present(message=change.message),
    )


def job_delivery(job: Job) -> jobs_pb2.JobDelivery:
    return jobs_pb2.JobDelivery(
        job_id=str(job.id),
        computer_id=str(job.computer_id),
        printer_id=str(job.printer_id),
        title=job.title,
        content_type=job.content_type,
        qty=job.qty,
        options_json=json.dumps(options_to_apply(job.content_type, job.options)),
        file_sha256=job.file_sha256,
        file_size=job.file_size,
        state=job.state,
        printer_name=job.printer_name,
        **present(custom_paper=jobs_pb2.PaperSize(**job.custom_paper) if job.custom_paper else None),
    )


def usage(counts: UsageCounts) -> jobs_pb2.Usage:
    return jobs_pb2.Usage(
        period_start=isoformat(counts.month[0]),
        period_end=isoformat(counts.month[1]),
        live_prints=counts.live_prints,
        day_start=isoformat(counts.day[0]),
        day_end=isoformat(counts.day[1]),
        test_jobs_today=counts.test_jobs_today,
        test_jobs_per_day=counts.test_jobs_per_day,
    )


def timers_fired(fired: Counter[TimerAction]) -> jobs_pb2.FireDueTimersResponse:
    return jobs_pb2.FireDueTimersResponse(
        resent=fired[TimerAction.RESEND],
        requeued=fired[TimerAction.REQUEUE],
        timed_out=fired[TimerAction.SPOOLER_TIMEOUT],
        expired=fired[TimerAction.EXPIRE],
    )


def job_filters(filters: jobs_pb2.JobFilters) -> JobFilters:
    """Checked as the gateway checks them, since a caller may send what the gateway would refuse."""

    def sent(
        field: Literal["printer_id", "computer_id", "state", "created_from", "created_to", "title_contains"],
    ) -> str | None:
        return getattr(filters, field) if filters.HasField(field) else None

    return list_filters.job_filters(
        printer_id=sent("printer_id"),
        computer_id=sent("computer_id"),
        state=sent("state"),
        created_from=sent("created_from"),
        created_to=sent("created_to"),
        title=sent("title_contains"),
    )


def submission(request: jobs_pb2.CreateJobRequest, document: bytes | bytearray | None) -> Submission:
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


def report_outcome(refused: ApiError | None) -> jobs_pb2.ReportOutcome:
    if refused is None:
        return jobs_pb2.ReportOutcome()
    return jobs_pb2.ReportOutcome(error_code=refused.code, error_message=refused.message)


def claim_answer(claim: Claim) -> jobs_pb2.ClaimDeliveryResponse:
    delivery = job_delivery(claim.job)
    if claim.content is not None:
        delivery.content = claim.content
    return jobs_pb2.ClaimDeliveryResponse(claimed=claim.claimed, delivery=delivery)


def claim_outcome(answer: Claim | ApiError) -> jobs_pb2.ClaimOutcome:
    if isinstance(answer, ApiError):
        return jobs_pb2.ClaimOutcome(error_code=answer.code, error_message=answer.message)
    return jobs_pb2.ClaimOutcome(answer=claim_answer(answer))
