"""Job records as the gRPC messages that responses, events and agents all use."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Row

from printcloud.core.timeutil import isoformat, isoformat_or_none
from printcloud.jobs.domain.submission import options_to_apply
from printcloud.jobs.domain.usage import UsageCounts
from printcloud.jobs.persistence.records import JobRecord
from printcloud.v1 import jobs_pb2


def _present(**fields: Any) -> dict[str, Any]:
    # proto3 `optional` fields must be left unset, not set to None.
    return {name: value for name, value in fields.items() if value is not None}


def print_job(job: JobRecord) -> jobs_pb2.PrintJob:
    return jobs_pb2.PrintJob(
        id=str(job.id),
        organization_id=str(job.organization_id),
        printer_id=str(job.printer_id),
        computer_id=str(job.computer_id),
        title=job.title,
        content_type=job.content_type,
        source=job.source,
        qty=job.qty,
        options_json=json.dumps(job.options),
        expire_after=job.expire_after,
        expires_at=isoformat(job.expires_at),
        file_sha256=job.file_sha256,
        file_size=job.file_size,
        mode=job.mode,
        state=job.state,
        created_at=isoformat(job.created_at),
        **_present(
            state_message=job.state_message,
            sent_at=isoformat_or_none(job.sent_at),
            received_at=isoformat_or_none(job.received_at),
            printing_at=isoformat_or_none(job.printing_at),
            finished_at=isoformat_or_none(job.finished_at),
        ),
    )


def job_state_change(change: Row[Any]) -> jobs_pb2.JobStateChange:
    return jobs_pb2.JobStateChange(
        id=str(change.id),
        state=change.state,
        actor=change.actor,
        created_at=isoformat(change.created_at),
        **_present(message=change.message),
    )


def job_delivery(job: JobRecord) -> jobs_pb2.JobDelivery:
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
        **_present(custom_paper=jobs_pb2.PaperSize(**job.custom_paper) if job.custom_paper else None),
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
