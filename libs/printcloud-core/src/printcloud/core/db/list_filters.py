"""The filters of the list endpoints, checked by one set of rules: the gateway refuses a bad one
before it calls a service, and the service, which acts on whatever filters it is sent, checks them
again by the same rules, in the same words, naming each filter as the public API does.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from printcloud.contracts.enums import DELIVERY_STATUSES, JobState
from printcloud.contracts.errors import invalid
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import MAX_TITLE_LENGTH, PrintJob
from printcloud.core.ids import uuid_field
from printcloud.core.timeutil import parse_iso

JOB_STATES: tuple[str, ...] = tuple(JobState)
_TITLE = public_name(PrintJob, lambda job: job.title)
_PRINTER_ID = public_name(PrintJob, lambda job: job.printerId)
_COMPUTER_ID = public_name(PrintJob, lambda job: job.computerId)
_STATE = public_name(PrintJob, lambda job: job.state)
_CREATED_FROM, _CREATED_TO = "createdFrom", "createdTo"


@dataclass(frozen=True)
class JobFilters:
    """What a list of jobs is narrowed to; None leaves a field unfiltered."""

    printer_id: uuid.UUID | None = None
    computer_id: uuid.UUID | None = None
    state: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    title_contains: str | None = None


def one_of(value: str | None, allowed: Sequence[str], name: str) -> str | None:
    if value is not None and value not in allowed:
        raise invalid(f"`{name}` must be one of {', '.join(allowed)}.")
    return value


def id_filter(value: str | None, name: str) -> uuid.UUID | None:
    return None if value is None else uuid_field(value, name)


def time_filter(value: str | None, name: str) -> datetime | None:
    if value is None:
        return None
    parsed = parse_iso(value)
    if parsed is None:
        raise invalid(f"`{name}` must be an ISO 8601 date-time with a time zone.")
    return parsed


def title_filter(value: str | None) -> str | None:
    """The text a title must contain, without the spaces around it."""
    if value is None:
        return None
    text = value.strip()
    if not 1 <= len(text) <= MAX_TITLE_LENGTH:
        raise invalid(f"`{_TITLE}` must be 1 to {MAX_TITLE_LENGTH} characters besides spaces.")
    return text


def job_filters(
    *,
    printer_id: str | None,
    computer_id: str | None,
    state: str | None,
    created_from: str | None,
    created_to: str | None,
    title: str | None,
) -> JobFilters:
    """The filters of `GET /v1/printjobs`, checked in the order the refusals name them."""
    return JobFilters(
        state=one_of(state, JOB_STATES, _STATE),
        printer_id=id_filter(printer_id, _PRINTER_ID),
        computer_id=id_filter(computer_id, _COMPUTER_ID),
        created_from=time_filter(created_from, _CREATED_FROM),
        created_to=time_filter(created_to, _CREATED_TO),
        title_contains=title_filter(title),
    )


def delivery_status(value: str | None) -> str | None:
    """The status filter of the webhook delivery log."""
    return one_of(value, DELIVERY_STATUSES, "status")
