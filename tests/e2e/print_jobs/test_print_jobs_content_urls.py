"""pdf_uri / raw_uri: checked at creation, fetched right after it through the guarded client,
from this test's own server on 127.0.0.1 (the only allowlisted address)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.client import MINIMAL_PDF, assert_error
from tests.e2e.jobs_api import create, history, url_body, wait_terminal
from tests.e2e.print_jobs.conftest import FETCH_TIMEOUT_SECONDS, Org
from tests.support.content_server import ContentServer, Route

OFFICE = "virtual-office"
LABEL = "virtual-label"

# Loopback forms outside the allowlist (127.0.0.1/32): refused at creation, so never connected to.
HOSTILE_AT_CREATION = [
    "http://127.0.0.2:{port}/doc.pdf",
    "http://127.2:{port}/doc.pdf",
    "http://2130706434:{port}/doc.pdf",
    "http://0x7f000002:{port}/doc.pdf",
    "http://017700000002:{port}/doc.pdf",
    "http://0177.0.0.2:{port}/doc.pdf",
    "http://[::1]:{port}/doc.pdf",
    "http://[::ffff:127.0.0.2]:{port}/doc.pdf",
    "http://[::ffff:7f00:2]:{port}/doc.pdf",
    "http://0.0.0.0:{port}/doc.pdf",
    "http://0:{port}/doc.pdf",
    "http://user:hunter2@127.0.0.1:{port}/doc.pdf",
    "http://127.0.0.1:{port}@127.0.0.2/doc.pdf",
    "ftp://127.0.0.1:{port}/doc.pdf",
    "file:///etc/passwd",
    "gopher://127.0.0.1:{port}/",
    "http://93.184.216.34:8080/doc.pdf",
    "https://93.184.216.34:22/doc.pdf",
    "http://127.0.0.1:{port}/" + "a" * 2048,
    "not a url",
]


@pytest.mark.parametrize("template", HOSTILE_AT_CREATION)
def test_a_content_url_failing_the_checks_is_invalid_content_url(org: Org, files: ContentServer, template: str) -> None:
    url = template.format(port=files.port)
    before = len(files.hits)
    response = org.client.post("/v1/printjobs", json=url_body(org.printers[OFFICE]["id"], url))
    error = assert_error(response, 422, "invalid_content_url")
    assert "hunter2" not in error["message"]
    assert len(files.hits) == before


def test_pdf_uri_is_fetched_right_after_creation_and_printed(org: Org, files: ContentServer) -> None:
    url = files.serve("/invoice.pdf", Route(body=MINIMAL_PDF))
    job = create(org.client, url_body(org.printers[OFFICE]["id"], url))
    assert job["state"] == "queued" and job["contentType"] == "pdf_uri"
    done = wait_terminal(org.client, job["id"])
    assert done["state"] == "done", done
    assert (done["fileSha256"], done["fileSize"]) == (hashlib.sha256(MINIMAL_PDF).hexdigest(), len(MINIMAL_PDF))
    assert len(files.hits_of("/invoice.pdf")) == 1


def test_raw_uri_is_fetched_and_printed(org: Org, files: ContentServer) -> None:
    url = files.serve("/label.zpl", Route(body=b"^XA^FDfrom a url^FS^XZ"))
    job = create(org.client, url_body(org.printers[LABEL]["id"], url, content_type="raw_uri"))
    done = wait_terminal(org.client, job["id"])
    assert done["state"] == "done" and done["fileSize"] == len(b"^XA^FDfrom a url^FS^XZ")


def test_basic_auth_credentials_are_sent_and_never_stored_or_logged(
    org: Org, files: ContentServer, sql: Callable[..., str], jobs_stack_logs: Path
) -> None:
    url = files.serve("/private.pdf", Route(body=MINIMAL_PDF, basic_auth=("alice", "pa55-never-logged")))
    body = url_body(
        org.printers[OFFICE]["id"],
        url + "?token=url-secret-token",
        authentication={"type": "BasicAuth", "credentials": {"user": "alice", "pass": "pa55-never-logged"}},
    )
    job = create(org.client, body)
    done = wait_terminal(org.client, job["id"])
    assert done["state"] == "done", done
    assert files.hits_of("/private.pdf")[-1].authorization is not None
    # Nothing of the URL or the credentials stays with the job, in the database or in the logs.
    for shown in (str(done), str(history(org.client, job["id"]))):
        assert "pa55-never-logged" not in shown and "url-secret-token" not in shown
    assert sql("SELECT 1 FROM jobs.pending_fetches WHERE job_id = $1::uuid", job["id"]) == "SELECT 0"
    logs = jobs_stack_logs.read_text()
    assert "pa55-never-logged" not in logs and "url-secret-token" not in logs


def test_a_redirect_is_not_followed_and_ends_the_job_in_error(org: Org, files: ContentServer) -> None:
    files.serve("/internal.pdf", Route(body=MINIMAL_PDF))
    url = files.serve(
        "/moved.pdf", Route(status=302, headers={"Location": f"http://127.0.0.2:{files.port}/internal.pdf"})
    )
    job = create(org.client, url_body(org.printers[OFFICE]["id"], url))
    ended = wait_terminal(org.client, job["id"])
    assert ended["state"] == "error" and "redirects are not followed" in ended["stateMessage"]
    assert files.hits_of("/internal.pdf") == []
    last = history(org.client, job["id"])[-1]
    assert (last["state"], last["actor"], last["message"]) == ("error", "system", ended["stateMessage"])


@pytest.mark.parametrize(
    ("path", "route", "reason"),
    [
        ("/missing.pdf", None, "HTTP 404"),
        ("/forbidden.pdf", Route(status=403), "HTTP 403"),
        ("/slow.pdf", Route(body=MINIMAL_PDF, delay=FETCH_TIMEOUT_SECONDS + 2), "within"),
        ("/huge.pdf", Route(body=b"%PDF-1.4\n", stream_bytes=30 * 1024 * 1024), "larger than"),
        ("/not-a-pdf.pdf", Route(body=b"GIF89a"), "not a PDF"),
        ("/empty.pdf", Route(body=b""), "empty"),
    ],
)
def test_a_fetch_that_fails_ends_the_job_in_error_with_the_reason(
    org: Org, files: ContentServer, path: str, route: Route | None, reason: str
) -> None:
    url = files.serve(path, route) if route else files.url(path)
    job = create(org.client, url_body(org.printers[OFFICE]["id"], url))
    ended = wait_terminal(org.client, job["id"], timeout=FETCH_TIMEOUT_SECONDS + 30)
    assert ended["state"] == "error" and reason in ended["stateMessage"], ended
    assert ended["fileSize"] == 0 and ended["sentAt"] is None


def test_an_unreachable_url_ends_the_job_in_error(org: Org) -> None:
    job = create(org.client, url_body(org.printers[OFFICE]["id"], "http://127.0.0.1:1/doc.pdf"))
    ended = wait_terminal(org.client, job["id"])
    assert ended["state"] == "error" and "could not be fetched" in ended["stateMessage"]
