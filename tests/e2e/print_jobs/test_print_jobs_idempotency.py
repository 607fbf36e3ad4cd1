"""Idempotency-Key on POST /v1/printjobs, exactly as the spec's Limits table says."""

from __future__ import annotations

import base64
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from printcloud.api_gateway.domain.idempotency import fingerprint
from printcloud.contracts.job_upload import upload_parts
from printcloud.core.rpc import service_auth
from printcloud.devstack.stack import Stack
from printcloud.v1 import common_pb2, jobs_pb2, jobs_pb2_grpc
from tests.e2e.client import api, assert_error
from tests.e2e.jobs_api import pdf_body
from tests.e2e.print_jobs.conftest import Org, new_org
from tests.support.service_token import channel_as

OFFICE = "virtual-office"


def _post(client: httpx.Client, body: dict, key: str) -> httpx.Response:
    return client.post("/v1/printjobs", json=body, headers={"Idempotency-Key": key})


def _job_count(org: Org, title: str) -> int:
    return sum(job["title"] == title for job in org.client.get("/v1/printjobs", params={"limit": 100}).json()["data"])


def test_same_key_and_body_returns_the_first_response_marked_replayed(org: Org) -> None:
    key, body = str(uuid.uuid4()), pdf_body(org.printers[OFFICE]["id"], title="idem replay")
    first = _post(org.client, body, key)
    assert first.status_code == 201 and "idempotent-replayed" not in first.headers
    # Same body with its fields in another order is the same request.
    again = _post(org.client, dict(reversed(list(body.items()))), key)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert _job_count(org, "idem replay") == 1


def test_same_key_with_a_different_body_is_idempotency_key_reused(org: Org) -> None:
    key = str(uuid.uuid4())
    assert _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem a"), key).status_code == 201
    assert_error(
        _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem b"), key), 422, "idempotency_key_reused"
    )


def test_a_first_request_that_failed_releases_the_key(org: Org) -> None:
    key = str(uuid.uuid4())
    not_pdf = base64.b64encode(b"GIF89a").decode()
    assert_error(_post(org.client, pdf_body(org.printers[OFFICE]["id"], content=not_pdf), key), 422, "invalid_content")
    assert_error(_post(org.client, pdf_body("0190a0a0-0000-7000-8000-000000000000"), key), 404, "not_found")
    created = _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem after failure"), key)
    assert created.status_code == 201 and "idempotent-replayed" not in created.headers


def test_a_key_over_255_characters_is_invalid_request(org: Org) -> None:
    assert_error(_post(org.client, pdf_body(org.printers[OFFICE]["id"]), "k" * 256), 400, "invalid_request")
    assert _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem 255"), "k" * 255).status_code == 201


def test_keys_are_per_organization(org: Org, jobs_stack: Stack) -> None:
    other = new_org(jobs_stack)
    key = str(uuid.uuid4())
    mine = _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem per org"), key)
    theirs = _post(other.client, pdf_body(other.printers[OFFICE]["id"], title="idem per org"), key)
    assert mine.status_code == theirs.status_code == 201
    assert "idempotent-replayed" not in theirs.headers and mine.json()["id"] != theirs.json()["id"]


def test_a_key_of_the_other_mode_is_a_different_request(org: Org, jobs_stack: Stack) -> None:
    key = str(uuid.uuid4())
    assert _post(org.client, pdf_body(org.printers[OFFICE]["id"], title="idem mode"), key).status_code == 201
    with api(jobs_stack.api_url, org.live_key) as live:
        # Never a replay of the test job to a live key.
        assert_error(
            _post(live, pdf_body(org.printers[OFFICE]["id"], title="idem mode"), key), 422, "idempotency_key_reused"
        )


def test_50_concurrent_identical_requests_create_exactly_one_job(org: Org, jobs_stack: Stack) -> None:
    key, body = str(uuid.uuid4()), pdf_body(org.printers[OFFICE]["id"], title="idem concurrent")
    clients = [api(jobs_stack.api_url, org.test_key) for _ in range(50)]
    try:
        with ThreadPoolExecutor(max_workers=50) as pool:
            responses = list(pool.map(lambda client: _post(client, body, key), clients))
    finally:
        for client in clients:
            client.close()
    created = [r for r in responses if r.status_code == 201]
    for response in responses:
        if response.status_code != 201:
            assert_error(response, 409, "idempotency_in_progress")
    assert created and len({r.json()["id"] for r in created}) == 1
    assert sum("idempotent-replayed" not in r.headers for r in created) == 1
    assert _job_count(org, "idem concurrent") == 1


def test_a_job_whose_first_answer_was_lost_is_replayed_to_the_retry_not_created_again(
    org: Org, jobs_stack: Stack
) -> None:
    """What a gateway killed (or a deadline fired) after jobs committed leaves behind: the job and
    its key, and a client that never got the answer. Its retry with the key must get that job."""
    key, body = str(uuid.uuid4()), pdf_body(org.printers[OFFICE]["id"], title="idem answer lost")
    request = jobs_pb2.CreateJobRequest(
        scope=common_pb2.Scope(organization_id=org.id, mode="test"),
        printer_id=body["printerId"],
        title=body["title"],
        content_type=body["contentType"],
        source="api",
        qty=1,
        expire_after=86400,
        options_json="{}",
        idempotency_key=key,
        request_fingerprint=fingerprint("test", body),
    )
    target = f"127.0.0.1:{jobs_stack.config.jobs_grpc_port}"
    with channel_as(target, service_auth.API_GATEWAY, jobs_stack.internal_auth_secret) as channel:
        parts = upload_parts(request, base64.b64decode(body["content"]))
        committed = jobs_pb2_grpc.JobsStub(channel).CreateJob(parts, timeout=10)

    retry = _post(org.client, body, key)

    assert retry.status_code == 201 and retry.headers["idempotent-replayed"] == "true"
    assert retry.json()["id"] == committed.job.id
    assert _job_count(org, "idem answer lost") == 1
