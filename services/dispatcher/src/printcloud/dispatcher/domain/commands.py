"""The agent commands the dispatcher issues."""

from __future__ import annotations

from printcloud.core.messages import Message


def deliver_job(organization_id: str, mode: str, computer_id: str, job_id: str) -> Message:
    return Message(
        type="job.deliver",
        organization_id=organization_id,
        mode=mode,
        data={"computerId": computer_id, "jobId": job_id},
    )
