"""What a CUPS job's attributes mean for the PrintCloud job: pure functions, no I/O."""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.agent.backends.cups.ipp import Attributes, first_value

PENDING = 3
HELD = 4
PROCESSING = 5
PROCESSING_STOPPED = 6
CANCELED = 7
ABORTED = 8
COMPLETED = 9

JOB_ATTRIBUTES = ("job-state", "job-state-reasons", "job-printer-state-message", "job-state-message")


@dataclass(frozen=True)
class Progress:
    """`started`: the spooler reports the job processing or beyond. `outcome`: done or error, once final."""

    started: bool
    outcome: str | None = None
    message: str | None = None


def _reasons(attrs: Attributes) -> str:
    reasons = [r for r in attrs.get("job-state-reasons", []) if isinstance(r, str) and r != "none"]
    return ", ".join(reasons)


def _why(attrs: Attributes) -> str:
    for name in ("job-printer-state-message", "job-state-message"):
        text = first_value(attrs, name, "")
        if isinstance(text, str) and text.strip():
            return text.strip()
    return _reasons(attrs) or "no reason given"


def progress(attrs: Attributes, job_id: int) -> Progress:
    state = first_value(attrs, "job-state", PENDING)
    if state == COMPLETED:
        return Progress(True, "done")
    if state == ABORTED:
        return Progress(True, "error", f"CUPS aborted job {job_id}: {_why(attrs)}")
    if state == CANCELED:
        return Progress(
            True, "error", f"CUPS job {job_id} was cancelled on the computer ({_reasons(attrs) or 'by a user'})"
        )
    return Progress(started=state in (PROCESSING, PROCESSING_STOPPED))
