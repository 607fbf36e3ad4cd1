"""The job's message is made from the job's own fields by name, each carried as the API shows it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from printcloud.contracts import representations
from printcloud.jobs.domain.events import published_job
from printcloud.jobs.domain.job import Job


def _job(**changes: object) -> Job:
    created = datetime(2026, 11, 26, 9, 30, 15, 123000, tzinfo=UTC)
    job = Job(
        id=uuid.uuid4(),
        organization_id=uuid.uuid4(),
        mode="test",
        printer_id=uuid.uuid4(),
        computer_id=uuid.uuid4(),
        printer_name="Front desk",
        title="Label",
        content_type="raw_base64",
        source="API",
        qty=2,
        options={"paper": "4x6"},
        expire_after=3600,
        expires_at=created,
        file_id=None,
        file_sha256="ab" * 32,
        file_size=1234,
        state="printing",
        state_message=None,
        send_count=1,
        created_at=created,
        sent_at=created,
    )
    for name, value in changes.items():
        setattr(job, name, value)
    return job


def test_every_field_reaches_the_representation_as_the_api_shows_it() -> None:
    job = _job()
    shown = representations.print_job(published_job(job, waiting="The printer reports out of paper"))
    assert shown["id"] == str(job.id) and shown["printerId"] == str(job.printer_id)
    assert shown["options"] == {"paper": "4x6"} and shown["qty"] == 2 and shown["fileSize"] == 1234
    assert shown["createdAt"] == "2026-11-26T09:30:15.123Z" and shown["sentAt"] == "2026-11-26T09:30:15.123Z"
    assert shown["receivedAt"] is None and shown["finishedAt"] is None
    assert shown["stateMessage"] == "The printer reports out of paper"


def test_optional_fields_without_a_value_stay_unset() -> None:
    message = published_job(_job())
    assert not message.HasField("state_message") and not message.HasField("printing_at")
    assert json.loads(message.options_json) == {"paper": "4x6"}
