"""The API against its OpenAPI document: schemathesis (every operation, every check, the stateful
phase) on a stack of its own with a test-mode key, and a job's whole life checked against the
document. How to run it alone: docs/api.md, "The OpenAPI document"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import schemathesis

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, eventually
from tests.e2e.contract.conftest import DOCUMENT_PATH
from tests.e2e.contract.hooks import CONTENT_URL, PAIRING_CODE, WEBHOOK_URL
from tests.e2e.tenants import create_key, create_org
from tests.support.content_server import ContentServer
from tests.support.receiver import Receiver

HERE = Path(__file__).parent
SCHEMATHESIS = str(Path(sys.executable).with_name("st"))
MIN_CASES = 1000


def _document(client: httpx.Client, into: Path) -> Path:
    response = client.get("/v1/openapi.json")
    assert response.status_code == 200, response.text
    into.write_text(response.text)
    return into


def test_schemathesis_finds_no_failure(
    contract_stack: Stack, documents: ContentServer, webhook_receiver: Receiver, tmp_path: Path
) -> None:
    key = create_key(contract_stack, create_org(contract_stack, "Contract"), "test", "read,print,admin")
    with api(contract_stack.api_url, key) as client:
        document = _document(client, tmp_path / "openapi.json")
        # The links from printers to new jobs need the virtual printers there from the first case.
        eventually(lambda: len(client.get("/v1/printers").json()["data"]) == 4, timeout=60, what="virtual printers")
    pairing_key = create_key(contract_stack, create_org(contract_stack, "ContractPairing"), "test", "admin")
    with api(contract_stack.api_url, pairing_key) as pairing:
        pairing_code = pairing.post("/v1/agent/pairing-codes", json={"maxUses": 1000}).json()["code"]
    command = [
        SCHEMATHESIS, "--config-file", str(HERE / "schemathesis.toml"), "--no-color",
        "run", str(document), "--url", contract_stack.api_url,
        "--header", f"Authorization: Bearer {key}",
        "--checks", "all", "--phases", "examples,coverage,fuzzing,stateful",
        "--report", "ndjson", "--report-ndjson-path", str(tmp_path / "events.ndjson"),
    ]  # fmt: skip
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.e2e.contract.hooks",
        CONTENT_URL: documents.url(DOCUMENT_PATH),
        WEBHOOK_URL: webhook_receiver.url(""),
        PAIRING_CODE: pairing_code,
    }
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
    report = run.stdout[-30000:] + run.stderr[-5000:]
    print(run.stdout[-6000:])  # the summary, for `pytest -s`
    assert run.returncode == 0, report
    operations = sum(1 for item in json.loads(document.read_text())["paths"].values() for _ in item)
    assert f"Tested: {operations}\n" in run.stdout, report
    assert int(_number(r"(\d+) generated", run.stdout)) >= MIN_CASES, report
    assert int(_number(r"Scenarios:\s+(\d+)", run.stdout)) > 0, "the stateful phase ran"
    assert "Failures:" not in run.stdout and "Errors:" not in run.stdout, report


def _number(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    assert found, f"no {pattern!r} in the summary"
    return found[1]


def test_a_job_and_a_webhook_through_their_lives_match_the_document(
    contract_stack: Stack, webhook_receiver: Receiver, tmp_path: Path
) -> None:
    """What random cases rarely reach: a job done by the virtual agent, its state changes by every
    actor, a delivery that was sent, and the events feed, each answer checked against the document."""
    key = create_key(contract_stack, create_org(contract_stack, "Lifecycle"), "test", "read,print,admin")
    with api(contract_stack.api_url, key) as client:
        schema = schemathesis.openapi.from_path(_document(client, tmp_path / "openapi.json"))

        def checked(method: str, path: str, template: str, **kwargs: object) -> dict:
            response = client.request(method, path, **kwargs)
            assert response.status_code < 300, response.text
            schema[template][method].validate_response(response)
            return response.json() if response.content else {}

        printers = eventually(lambda: client.get("/v1/printers").json()["data"], timeout=60, what="virtual printers")
        endpoint = checked(
            "POST",
            "/v1/webhooks",
            "/v1/webhooks",
            json={"url": webhook_receiver.url("/life"), "events": ["printjob.done"]},
        )
        job = checked(
            "POST", "/v1/printjobs", "/v1/printjobs",
            json={"printerId": printers[0]["id"], "title": "life", "contentType": "pdf_base64", "content": PDF_BASE64},
        )  # fmt: skip
        eventually(lambda: client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "done", what="the job done")
        done = checked("GET", f"/v1/printjobs/{job['id']}", "/v1/printjobs/{id}")
        assert None not in (done["sentAt"], done["receivedAt"], done["printingAt"], done["finishedAt"])
        changes = checked("GET", f"/v1/printjobs/{job['id']}/events", "/v1/printjobs/{id}/events")["data"]
        assert {"api", "agent"} <= {change["actor"] for change in changes}
        eventually(lambda: webhook_receiver.received("/life"), what="the delivery of printjob.done")
        deliveries = checked("GET", f"/v1/webhooks/{endpoint['id']}/deliveries", "/v1/webhooks/{id}/deliveries")
        assert any(delivery["attempts"] for delivery in deliveries["data"])
        assert checked("GET", "/v1/events", "/v1/events")["data"]
        for path in ("/v1/whoami", "/v1/usage", "/v1/computers", "/v1/printers", "/v1/printjobs", "/v1/webhooks"):
            checked("GET", path, path)
