"""A print job's facts as the use cases read and change them: a plain dataclass, made from a
`print_jobs` row by the repository and written back by the columns a change names."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict


class CustomPaper(TypedDict):
    """A saved custom paper the job's `paper` option names, with the size its agent prints it at."""

    name: str
    width: int
    height: int


@dataclass
class Job:
    id: uuid.UUID
    organization_id: uuid.UUID
    mode: str
    printer_id: uuid.UUID
    computer_id: uuid.UUID
    printer_name: str
    title: str
    content_type: str
    source: str
    qty: int
    options: dict[str, Any]
    expire_after: int
    expires_at: datetime
    file_id: uuid.UUID | None
    file_sha256: str
    file_size: int
    state: str
    state_message: str | None
    send_count: int
    created_at: datetime
    sent_at: datetime | None = None
    received_at: datetime | None = None
    printing_at: datetime | None = None
    finished_at: datetime | None = None
    custom_paper: CustomPaper | None = None
    # The topic of the job's events, kept for its life; None: the domain events' topic.
    events_topic: str | None = None


@dataclass(frozen=True)
class ShownJob:
    """A job as a read shows it: with the note on the printer it waits for, when there is one
    (`domain.printer_conditions.waiting_note`)."""

    job: Job
    waiting: str | None = None
