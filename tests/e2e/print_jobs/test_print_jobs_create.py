"""POST /v1/printjobs, rule by rule (spec "Print jobs", "Print job", "Print options", "Errors")."""

from __future__ import annotations

import base64
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, PDF_BASE64, api, assert_error
from tests.e2e.jobs_api import create, history, pdf_body, wait_terminal
from tests.e2e.print_jobs.conftest import TEST_JOBS_PER_DAY, Org, new_org

OFFICE = "virtual-office"


def _post(org: Org, body: dict[str, Any]) -> httpx.Response:
    return org.client.post("/v1/printjobs", json=body)


def test_new_document_form_creates_a_queued_job_with_the_spec_defaults(org: Org) -> None:
    job = create(org.client, pdf_body(org.printers[OFFICE]["id"]))
    assert job["state"] == "queued" and job["contentType"] == "pdf_base64"
    assert (job["source"], job["qty"], job["expireAfter"]) == ("api", 1, 86400)
    created = datetime.fromisoformat(job["createdAt"].replace("Z", "+00:00"))
    assert datetime.fromisoformat(job["expiresAt"].replace("Z", "+00:00")) - created == timedelta(seconds=86400)
    first = history(org.client, job["id"])[0]
    assert (first["state"], first["actor"]) == ("queued", "api")


def test_expire_after_sets_expires_at(org: Org) -> None:
    job = create(org.client, pdf_body(org.printers[OFFICE]["id"], expireAfter=60))
    created = datetime.fromisoformat(job["createdAt"].replace("Z", "+00:00"))
    assert datetime.fromisoformat(job["expiresAt"].replace("Z", "+00:00")) - created == timedelta(seconds=60)


def test_source_qty_and_title_limits_are_kept_as_sent(org: Org) -> None:
    job = create(org.client, pdf_body(org.printers[OFFICE]["id"], source="erp", qty=100, title="t" * 255))
    assert (job["source"], job["qty"], job["title"]) == ("erp", 100, "t" * 255)


@pytest.mark.parametrize(
    "change",
    [
        {"title": ""},
        {"title": "t" * 256},
        {"qty": 0},
        {"qty": 101},
        {"expireAfter": 59},
        {"expireAfter": 604801},
        {"content": ""},
        {"source": 5},
        {"qty": "2"},
        {"contentType": "docx_base64"},
        {"staple": True},
        {"reprintOf": "0190a0a0-0000-7000-8000-000000000000"},
        {"authentication": {"type": "Digest", "credentials": {"user": "a", "pass": "b"}}},
    ],
    ids=lambda change: ",".join(change),
)
def test_a_field_out_of_its_rule_or_a_mixed_form_is_invalid_request(org: Org, change: dict[str, Any]) -> None:
    assert_error(_post(org, {**pdf_body(org.printers[OFFICE]["id"]), **change}), 400, "invalid_request")


@pytest.mark.parametrize("missing", ["printerId", "title", "contentType", "content"])
def test_a_missing_field_is_invalid_request(org: Org, missing: str) -> None:
    body = pdf_body(org.printers[OFFICE]["id"])
    del body[missing]
    assert_error(_post(org, body), 400, "invalid_request")


@pytest.mark.parametrize(
    "extra", [{"contentType": "pdf_base64"}, {"content": PDF_BASE64}, {"expireAfter": 600}, {"options": {}}]
)
def test_the_reprint_form_takes_no_new_document_fields(org: Org, extra: dict[str, Any]) -> None:
    original = create(org.client, pdf_body(org.printers[OFFICE]["id"]))
    body = {"printerId": org.printers[OFFICE]["id"], "title": "again", "reprintOf": original["id"], **extra}
    assert_error(_post(org, body), 400, "invalid_request")


@pytest.mark.parametrize(
    "content",
    [
        base64.urlsafe_b64encode(b"%PDF-\xfb\xff\xfe").decode(),  # URL-safe alphabet
        PDF_BASE64[:8] + "\n" + PDF_BASE64[8:],  # whitespace
        PDF_BASE64.rstrip("="),  # missing padding
        PDF_BASE64 + "QQ==",  # data after padding
        "JVBERi0é",  # not ASCII
    ],
)
def test_content_must_be_standard_base64(org: Org, content: str) -> None:
    assert_error(_post(org, pdf_body(org.printers[OFFICE]["id"], content=content)), 400, "invalid_request")


def test_pdf_base64_must_start_with_the_pdf_marker(org: Org) -> None:
    not_pdf = base64.b64encode(b"GIF89a not a pdf").decode()
    assert_error(_post(org, pdf_body(org.printers[OFFICE]["id"], content=not_pdf)), 422, "invalid_content")


def test_raw_base64_needs_no_pdf_marker(org: Org) -> None:
    zpl = base64.b64encode(b"^XA^FDlabel^FS^XZ").decode()
    job = create(org.client, pdf_body(org.printers["virtual-label"]["id"], contentType="raw_base64", content=zpl))
    assert job["fileSize"] == len(b"^XA^FDlabel^FS^XZ")


def test_base64_content_over_25_mb_decoded_is_content_too_large(org: Org) -> None:
    limit = 25 * 1024 * 1024
    over = base64.b64encode(MINIMAL_PDF + b"\0" * (limit + 1 - len(MINIMAL_PDF))).decode()
    assert_error(_post(org, pdf_body(org.printers[OFFICE]["id"], content=over)), 413, "content_too_large")
    exactly = base64.b64encode(MINIMAL_PDF + b"\0" * (limit - len(MINIMAL_PDF))).decode()
    assert create(org.client, pdf_body(org.printers[OFFICE]["id"], content=exactly))["fileSize"] == limit


def test_unknown_option_name_is_invalid_request(org: Org) -> None:
    body = pdf_body(org.printers[OFFICE]["id"], options={"staple": True})
    assert "staple" in assert_error(_post(org, body), 400, "invalid_request")["message"]


@pytest.mark.parametrize(
    "options",
    [
        {"copies": 0},
        {"copies": 1000},
        {"nup": 17},
        {"nup": 0},
        {"rotate": 45},
        {"duplex": "both"},
        {"color": "yes"},
        {"pages": "3-1"},
        {"paper": ""},
    ],
    ids=lambda options: f"{next(iter(options))}={next(iter(options.values()))!r}",
)
def test_option_values_outside_the_spec_ranges_are_invalid_request(org: Org, options: dict[str, Any]) -> None:
    assert_error(_post(org, pdf_body(org.printers[OFFICE]["id"], options=options)), 400, "invalid_request")


def test_omitted_options_are_filled_from_the_printer_defaults(org: Org) -> None:
    printer = org.printers[OFFICE]
    job = create(org.client, pdf_body(printer["id"], options={"copies": 2}))
    assert job["options"] == {**printer["defaultOptions"], "copies": 2}


def test_raw_jobs_ignore_options(org: Org) -> None:
    zpl = base64.b64encode(b"^XA^XZ").decode()
    label = org.printers["virtual-label"]
    job = create(
        org.client, pdf_body(label["id"], contentType="raw_base64", content=zpl, options={"duplex": "long-edge"})
    )
    # Kept as sent (no defaults, no warnings): raw data reaches the printer untouched.
    assert job["options"] == {"duplex": "long-edge"} and job["stateMessage"] is None
    assert wait_terminal(org.client, job["id"])["state"] == "done"


def test_an_option_the_printer_cannot_honour_is_dropped_with_a_warning(org: Org) -> None:
    windows = org.printers["virtual-windows"]
    assert windows["capabilities"]["color"] is False
    job = create(org.client, pdf_body(windows["id"], options={"color": True, "paper": "Tabloid"}))
    assert "color" not in job["options"] and "paper" not in job["options"]
    assert "color ignored" in job["stateMessage"] and "paper ignored" in job["stateMessage"]
    done = wait_terminal(org.client, job["id"])
    assert done["state"] == "done" and "color ignored" in done["stateMessage"]


def test_paper_names_come_from_the_printer_papers(org: Org) -> None:
    office = org.printers[OFFICE]
    paper = next(name for name in office["capabilities"]["papers"] if name != office["defaultOptions"].get("paper"))
    job = create(org.client, pdf_body(office["id"], options={"paper": paper}))
    assert job["options"]["paper"] == paper and job["stateMessage"] is None


def test_copies_are_capped_by_the_printer_capabilities(org: Org) -> None:
    photo = org.printers["virtual-photo"]
    most = photo["capabilities"]["copies"]
    job = create(org.client, pdf_body(photo["id"], options={"copies": most + 1}))
    assert job["options"]["copies"] == most and f"copies reduced to {most}" in job["stateMessage"]


def test_unknown_printer_is_not_found(org: Org) -> None:
    assert_error(_post(org, pdf_body("0190a0a0-0000-7000-8000-000000000000")), 404, "not_found")


def test_a_printer_that_is_not_live_is_printer_disabled_from_the_answer_to_its_patch_on(org: Org) -> None:
    photo = org.printers["virtual-photo"]
    path = f"/v1/printers/{photo['id']}"
    create(org.client, pdf_body(photo["id"]))  # jobs now keeps what it read of the printer
    assert org.client.patch(path, json={"enabled": False}).status_code == 200
    try:
        assert_error(_post(org, pdf_body(photo["id"])), 422, "printer_disabled")
    finally:
        assert org.client.patch(path, json={"enabled": True}).status_code == 200
    create(org.client, pdf_body(photo["id"]))


def test_a_key_of_the_other_mode_is_mode_mismatch(org: Org, jobs_stack: Stack) -> None:
    with api(jobs_stack.api_url, org.live_key) as live:
        assert_error(live.post("/v1/printjobs", json=pdf_body(org.printers[OFFICE]["id"])), 422, "mode_mismatch")


def test_test_jobs_over_the_daily_cap_are_refused(jobs_stack: Stack) -> None:
    capped = new_org(jobs_stack)
    label = capped.printers["virtual-label"]["id"]
    body = pdf_body(label, contentType="raw_base64", content=base64.b64encode(b"^XA^XZ").decode())
    for _ in range(TEST_JOBS_PER_DAY):
        create(capped.client, body)
    assert_error(_post(capped, body), 429, "test_mode_daily_cap")
    # Refused jobs are not stored and do not count.
    listed = capped.client.get("/v1/printjobs", params={"limit": 100}).json()["data"]
    assert len(listed) == TEST_JOBS_PER_DAY
