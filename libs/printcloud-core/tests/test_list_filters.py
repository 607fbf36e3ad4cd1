from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core.db.list_filters import JobFilters, delivery_status, job_filters

NONE = {"printer_id": None, "computer_id": None, "state": None, "created_from": None, "created_to": None, "title": None}


def test_job_filters_are_read_into_typed_values() -> None:
    printer = uuid.uuid4()
    filters = job_filters(
        **{**NONE, "printer_id": str(printer), "state": "error", "created_from": "2026-01-01T00:00:00Z", "title": " a "}
    )
    assert filters == JobFilters(
        printer_id=printer, state="error", created_from=datetime(2026, 1, 1, tzinfo=UTC), title_contains="a"
    )
    assert job_filters(**NONE) == JobFilters()


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        (
            {"state": "lost"},
            "`state` must be one of queued, sent, received, printing, done, error, cancelled, expired.",
        ),
        ({"printer_id": "x"}, "`printerId` must be a UUID."),
        ({"computer_id": ""}, "`computerId` must be a UUID."),
        ({"created_from": "yesterday"}, "`createdFrom` must be an ISO 8601 date-time with a time zone."),
        ({"created_to": "2024-01-01T00:00:00"}, "`createdTo` must be an ISO 8601 date-time with a time zone."),
        ({"title": "   "}, "`title` must be 1 to 255 characters besides spaces."),
        ({"title": "x" * 256}, "`title` must be 1 to 255 characters besides spaces."),
        # The state is checked first, as the gateway's refusals name it.
        ({"state": "lost", "printer_id": "x"}, "`state` must be one of"),
    ],
)
def test_a_bad_job_filter_is_refused_in_the_public_api_s_words(sent: dict[str, str], message: str) -> None:
    with pytest.raises(ApiError) as caught:
        job_filters(**{**NONE, **sent})
    assert caught.value.code == "invalid_request"
    assert caught.value.message.startswith(message)


def test_the_delivery_status_filter_takes_the_statuses_of_the_contract() -> None:
    assert delivery_status("failed") == "failed"
    assert delivery_status(None) is None
    with pytest.raises(ApiError) as caught:
        delivery_status("lost")
    assert caught.value.message == "`status` must be one of pending, retrying, succeeded, failed."
