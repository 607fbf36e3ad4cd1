"""A job for a computer whose agent is gone waits in `queued` and prints once the agent is back:
the agent-gateway replica taking its new connection sends it."""

from __future__ import annotations

import httpx

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, eventually


def _computer_state(client: httpx.Client, computer_id: str) -> str:
    return client.get(f"/v1/computers/{computer_id}").json()["state"]


def test_job_queued_while_offline_prints_when_the_agent_returns(
    stack: Stack, client: httpx.Client, virtual_printers: dict
) -> None:
    printer = virtual_printers["virtual-label"]
    computer_id = printer["computerId"]
    stack.kill("virtual-fleet")  # the virtual agent dies as a crashed agent would
    try:
        eventually(lambda: _computer_state(client, computer_id) == "offline", timeout=30, what="computer offline")
        job = client.post(
            "/v1/printjobs",
            json={
                "printerId": printer["id"],
                "title": "while away",
                "contentType": "pdf_base64",
                "content": PDF_BASE64,
            },
        ).json()
        assert client.get(f"/v1/printjobs/{job['id']}").json()["state"] == "queued"
    finally:
        stack.restart("virtual-fleet")

    done = eventually(
        lambda: (j := client.get(f"/v1/printjobs/{job['id']}").json())["state"] == "done" and j,
        timeout=30,
        what="the waiting job to print",
    )
    assert _computer_state(client, computer_id) == "online"
    assert done["sentAt"] > done["createdAt"]
    history = [c["state"] for c in client.get(f"/v1/printjobs/{job['id']}/events").json()["data"]]
    assert history == ["queued", "sent", "received", "printing", "done"]
