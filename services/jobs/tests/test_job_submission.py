"""Field limits and defaults of a new job (spec "Print jobs" and "Limits")."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.jobs.domain.submission import Submission, accept, check_content, options_to_apply

PRINTER_ID = str(uuid.uuid4())
BASE = Submission(
    printer_id=PRINTER_ID,
    title="Invoice",
    content_type="pdf_base64",
    data=b"%PDF-1.7 ...",
    url=None,
    source="",
    qty=0,
    expire_after=0,
    options_json="",
    reprint_of=None,
)


def submission(**changes: Any) -> Submission:
    return dataclasses.replace(BASE, **changes)


def test_omitted_fields_take_their_defaults() -> None:
    accepted = accept(BASE)
    assert (accepted.qty, accepted.expire_after, accepted.source, accepted.options) == (1, 86_400, "api", {})
    assert accepted.printer_id == uuid.UUID(PRINTER_ID)
    assert accepted.content == b"%PDF-1.7 ..."


def test_given_fields_are_kept() -> None:
    accepted = accept(
        submission(title="x" * 255, qty=100, expire_after=604_800, source="erp", options_json='{"copies": 2}')
    )
    assert (accepted.qty, accepted.expire_after, accepted.source, accepted.options) == (
        100,
        604_800,
        "erp",
        {"copies": 2},
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"title": ""},
        {"title": "x" * 256},
        {"qty": 101},
        {"qty": -1},
        {"expire_after": 59},
        {"expire_after": 604_801},
        {"printer_id": "not-a-uuid"},
        {"content_type": "docx_base64"},
        {"data": b""},
        {"data": None, "url": "https://example.com/a.pdf"},
        {"options_json": "{"},
        {"options_json": '{"staple": true}'},
    ],
)
def test_invalid_fields_are_rejected(changes: dict[str, Any]) -> None:
    with pytest.raises(ApiError) as caught:
        accept(submission(**changes))
    assert caught.value.code == "invalid_request"


@pytest.mark.parametrize("content_type", ["pdf_uri", "raw_uri"])
def test_url_content_is_accepted_with_its_credentials(content_type: str) -> None:
    accepted = accept(
        submission(content_type=content_type, data=None, url="https://example.com/a.pdf", authentication=("u", "p"))
    )
    assert (accepted.url, accepted.authentication, accepted.content) == ("https://example.com/a.pdf", ("u", "p"), None)


def test_authentication_applies_only_to_url_content() -> None:
    with pytest.raises(ApiError) as caught:
        accept(submission(authentication=("u", "p")))
    assert caught.value.code == "invalid_request"


def test_reprint_takes_no_content_and_copies_the_type_later() -> None:
    original = uuid.uuid4()
    accepted = accept(submission(reprint_of=str(original), content_type="", data=None))
    assert (accepted.reprint_of, accepted.content_type, accepted.content, accepted.url) == (original, None, None, None)
    with pytest.raises(ApiError) as caught:
        accept(submission(reprint_of=str(original)))
    assert caught.value.code == "invalid_request"


def test_pdf_content_must_start_with_the_pdf_marker() -> None:
    check_content("pdf_base64", b"%PDF-1.4")
    with pytest.raises(ApiError) as caught:
        check_content("pdf_base64", b"PK\x03\x04")
    assert caught.value.code == "invalid_content"


def test_raw_content_is_not_inspected() -> None:
    check_content("raw_base64", b"^XA^FDhello^FS^XZ")


def test_raw_jobs_apply_no_options() -> None:
    assert options_to_apply("raw_base64", {"copies": 2}) == {}
    assert options_to_apply("pdf_base64", {"copies": 2}) == {"copies": 2}
