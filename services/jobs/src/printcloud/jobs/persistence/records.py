"""Rows of `print_jobs` as objects.

`printcloud.core.paging.fetch_page` reads the page's items as scalars and their ids as attributes,
so jobs are mapped onto a class (imperatively, keeping `tables.py` plain Core). Mapping also lets
a locked job be changed by assigning its fields.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import registry

from printcloud.jobs.persistence.tables import print_jobs

_registry = registry()


@dataclass
class JobRecord:
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
    custom_paper: dict[str, Any] | None = None


_registry.map_imperatively(JobRecord, print_jobs)
