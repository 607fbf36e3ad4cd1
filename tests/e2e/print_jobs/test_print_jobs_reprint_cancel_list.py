"""Reprint (stored files kept 7 days), cancel, and the list filters of GET /v1/printjobs."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from printcloud.devstack.stack import Stack
from tests.e2e.client import MINIMAL_PDF, assert_error, eventually
from tests.e2e.jobs_api import create, history, pdf_body, url_body, wait_terminal
from tests.e2e.print_jobs.conftest import Org
from tests.support.content_server import ContentServer, Route

OFFICE = "virtual-office"


def test_reprint_prints_the_stored_file_again_and_copies_its_content_type(org: Org, files: ContentServer) -> None:
    url = files.serve("/reprinted.zpl", Route(body=b"^XA^FDonce^FS^XZ"))
    label = org.printers["virtual-label"]["id"]
    original = wait_terminal(org.client, create(org.client, url_body(label, url, content_type="raw_uri"))["id"])
    reprint = create(org.client, {"printerId": label, "title": "Again", "reprintOf": original["id"]})
    assert reprint["contentType"] == "raw_uri" and reprint["id"] != original["id"]
    assert (reprint["fileSha256"], reprint["fileSize"]) == (original["fileSha256"], original["fileSize"])
    assert wait_terminal(org.client, reprint["id"])["state"] == "done"
    assert len(files.hits_of("/reprinted.zpl")) == 1  # the stored file, not the URL again


def test_reprint_of_an_unknown_job_is_not_found(org: Org) -> None:
    body = {"printerId": org.printers[OFFICE]["id"], "title": "Again", "reprintOf": str(uuid.uuid4())}
    assert_error(org.client.post("/v1/printjobs", json=body), 404, "not_found")


def test_reprint_after_the_7_day_retention_is_file_expired(org: Org, sql: Callable[..., str]) -> None:
    original = wait_terminal(org.client, create(org.client, pdf_body(org.printers[OFFICE]["id"]))["id"])
    # A week passes for this file: its retention ends, and the housekeeping purges it.
    sql(
        "UPDATE jobs.stored_files SET expires_at = now() - interval '1 second'"
        " WHERE id = (SELECT file_id FROM jobs.print_jobs WHERE id = $1::uuid)",
        original["id"],
    )
    body = {"printerId": org.printers[OFFICE]["id"], "title": "Again", "reprintOf": original["id"]}
    assert_error(org.client.post("/v1/printjobs", json=body), 410, "file_expired")
    eventually(
        lambda: (
            sql("SELECT 1 FROM jobs.print_jobs WHERE id = $1::uuid AND file_id IS NULL", original["id"]) == "SELECT 1"
        ),
        what="the expired file to be purged",
    )
    assert_error(org.client.post("/v1/printjobs", json=body), 410, "file_expired")


def test_files_are_kept_7_days(org: Org, sql: Callable[..., str]) -> None:
    job = create(org.client, pdf_body(org.printers[OFFICE]["id"]))
    kept = sql(
        "SELECT 1 FROM jobs.stored_files f JOIN jobs.print_jobs j ON j.file_id = f.id WHERE j.id = $1::uuid"
        " AND f.expires_at - f.created_at = interval '7 days'",
        job["id"],
    )
    assert kept == "SELECT 1"


def test_cancel_needs_the_print_scope(org: Org, jobs_stack: Stack) -> None:
    job = create(org.client, pdf_body(org.printers[OFFICE]["id"]))
    with httpx.Client(base_url=jobs_stack.api_url, headers={"Authorization": f"Bearer {org.read_key}"}) as reader:
        assert_error(reader.post(f"/v1/printjobs/{job['id']}/cancel"), 403, "insufficient_scope")


def test_cancel_of_a_queued_job_records_cancelled_and_it_never_prints(org: Org, files: ContentServer) -> None:
    # The fetch takes 2 s, so the job is certainly still queued when cancelled.
    url = files.serve("/slow-cancel.pdf", Route(body=MINIMAL_PDF, delay=2))
    job = create(org.client, url_body(org.printers[OFFICE]["id"], url))
    cancelled = org.client.post(f"/v1/printjobs/{job['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert cancelled.json()["finishedAt"] is not None
    eventually(lambda: files.hits_of("/slow-cancel.pdf"), what="the fetch to be made")
    # A later job on the same printer printing means the agent has had every chance to print it.
    wait_terminal(org.client, create(org.client, pdf_body(org.printers[OFFICE]["id"]))["id"])
    assert [(c["state"], c["actor"]) for c in history(org.client, job["id"])] == [
        ("queued", "api"),
        ("cancelled", "api"),
    ]


def test_cancel_after_the_agent_received_the_job_is_not_cancellable(org: Org) -> None:
    done = wait_terminal(org.client, create(org.client, pdf_body(org.printers[OFFICE]["id"]))["id"])
    assert_error(org.client.post(f"/v1/printjobs/{done['id']}/cancel"), 409, "not_cancellable")


class FakeAgent:
    """An agent that takes jobs and does nothing with them until told, over the real protocol."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def next_message(self, kind: str) -> dict[str, Any]:
        while True:
            message = json.loads(self.ws.recv(timeout=20))
            if message["type"] == kind:
                return message


@pytest.fixture
def held_printer(org: Org, jobs_stack: Stack) -> Iterator[tuple[FakeAgent, str]]:
    enrolled = org.client.post("/v1/agent/enroll", json={"hostname": f"holder-{uuid.uuid4().hex[:6]}"}).json()
    hello = {
        "type": "hello",
        "protocolVersion": 1,
        "computer": {"hostname": "holder", "os": "linux", "osVersion": "6", "arch": "x86_64", "agentVersion": "0.1"},
        "printers": [
            {"name": "holder", "osName": "Holder", "description": "", "isDefault": True, "state": "online",
             "stateDetail": "", "capabilities": {}, "defaultOptions": {}}
        ],
    }  # fmt: skip
    ws_url = enrolled["agentGatewayUrl"].replace("http", "ws", 1) + "/agent/v1/ws"
    with connect(
        ws_url,
        subprotocols=["printcloud.agent.v1"],  # type: ignore[list-item]
        additional_headers={"Authorization": f"Bearer {enrolled['credential']}"},
    ) as ws:
        ws.send(json.dumps(hello))
        agent = FakeAgent(ws)
        agent.next_message("welcome")

        def printer_id() -> str | None:
            printers = org.client.get(f"/v1/computers/{enrolled['computerId']}/printers").json()["data"]
            return printers[0]["id"] if printers else None

        yield agent, eventually(printer_id, what="the holder's printer")


def test_a_cancelled_job_the_agent_already_holds_never_prints(
    org: Org, jobs_stack: Stack, held_printer: tuple[FakeAgent, str]
) -> None:
    agent, printer_id = held_printer
    job = create(org.client, pdf_body(printer_id))
    pushed = agent.next_message("job")
    assert pushed["jobId"] == job["id"]
    assert org.client.post(f"/v1/printjobs/{job['id']}/cancel").json()["state"] == "cancelled"
    assert agent.next_message("job.cancel")["jobId"] == job["id"]
    # An agent that ignores the cancel still cannot get the file or move the job on.
    download = httpx.get(jobs_stack.agent_gateway_url + pushed["downloadPath"])
    assert download.status_code in (404, 409), download.status_code
    agent.ws.send(json.dumps({"type": "job.state", "jobId": job["id"], "state": "received"}))
    # A job on the virtual printer printing after the report shows the report has been handled.
    wait_terminal(org.client, create(org.client, pdf_body(org.printers[OFFICE]["id"]))["id"])
    assert org.client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "cancelled"
    assert [c["state"] for c in history(org.client, job["id"])] == ["queued", "sent", "cancelled"]


@pytest.fixture(scope="module")
def listed(org: Org) -> dict[str, Any]:
    office, label = org.printers[OFFICE], org.printers["virtual-label"]
    first = create(org.client, pdf_body(office["id"], title="list one"))
    second = create(org.client, pdf_body(label["id"], title="list two", contentType="raw_base64", content="XlhBXlha"))
    wait_terminal(org.client, first["id"])
    wait_terminal(org.client, second["id"])
    return {"first": first, "second": second, "office": office, "label": label}


def _ids(org: Org, **params: str) -> list[str]:
    response = org.client.get("/v1/printjobs", params={"limit": "100", **params})
    assert response.status_code == 200, response.text
    return [job["id"] for job in response.json()["data"]]


def test_list_filters_by_printer(org: Org, listed: dict[str, Any]) -> None:
    ids = _ids(org, printerId=listed["label"]["id"])
    assert listed["second"]["id"] in ids and listed["first"]["id"] not in ids


def test_list_filters_by_computer(org: Org, listed: dict[str, Any]) -> None:
    assert listed["first"]["id"] in _ids(org, computerId=listed["office"]["computerId"])
    assert _ids(org, computerId=str(uuid.uuid4())) == []


def test_list_filters_by_state(org: Org, listed: dict[str, Any]) -> None:
    done = _ids(org, state="done")
    assert listed["first"]["id"] in done
    assert listed["first"]["id"] not in _ids(org, state="queued")


def test_list_filters_by_creation_time_inclusive_at_both_ends(org: Org, listed: dict[str, Any]) -> None:
    first, second = listed["first"], listed["second"]
    between = _ids(org, createdFrom=first["createdAt"], createdTo=second["createdAt"])
    assert set(between) >= {first["id"], second["id"]}
    assert first["id"] not in _ids(org, createdFrom=second["createdAt"]) or first["createdAt"] == second["createdAt"]
    later = (datetime.fromisoformat(second["createdAt"].replace("Z", "+00:00")) + timedelta(hours=1)).isoformat()
    assert _ids(org, createdFrom=later) == []


@pytest.mark.parametrize(
    "params",
    [
        {"printerId": "not-a-uuid"},
        {"computerId": "42"},
        {"state": "finished"},
        {"createdFrom": "yesterday"},
        {"createdTo": "2030-01-01T00:00:00"},  # no zone
        {"createdAt": "2030-01-01T00:00:00Z"},  # not a parameter
    ],
)
def test_bad_list_filter_values_are_invalid_request(org: Org, params: dict[str, str]) -> None:
    assert_error(org.client.get("/v1/printjobs", params=params), 400, "invalid_request")
