"""The agent-gateway dies while the agent holds a job in CUPS: the job prints once and its final
state still reaches the service once the gateway is back."""

from __future__ import annotations

import uuid
from pathlib import Path

import httpx

from printcloud.devstack.stack import Stack
from tests.e2e.agent_cups.conftest import RunningAgent
from tests.e2e.agent_cups.cups_tools import IPP_QUEUE, IPPEVE_HOLD, IPPEVE_SPOOL, jobs_named, make_pdf
from tests.e2e.agent_cups.test_cups_printing import submit, wait_terminal
from tests.e2e.client import eventually


def test_a_gateway_restart_during_printing_prints_once_and_reports_done(
    cups_stack: Stack, live: httpx.Client, cups_printers: dict, agent: RunningAgent, tmp_path: Path
) -> None:
    printer = cups_printers[IPP_QUEUE]
    title = f"Held through a restart {uuid.uuid4().hex[:8]}"
    before = set(IPPEVE_SPOOL.glob("*.pdf"))
    IPPEVE_HOLD.touch()  # ippeveprinter's print command waits while this file exists
    try:
        job = submit(live, printer, title, make_pdf(1), {})
        eventually(
            lambda: live.get(f"/v1/printjobs/{job['id']}").json()["state"] == "printing",
            timeout=60,
            what="the job printing",
        )
        cups_stack.kill("agent-gateway")
        [held] = jobs_named(IPP_QUEUE, title, tmp_path)
        assert held["job-state"] == 5, held  # still processing in CUPS while the gateway is down
    finally:
        IPPEVE_HOLD.unlink(missing_ok=True)

    # The job finishes while the agent cannot reach the service: `done` has to survive the gap.
    eventually(
        lambda: [j["job-state"] for j in jobs_named(IPP_QUEUE, title, tmp_path)] == [9],
        timeout=60,
        what="the CUPS job completed",
    )
    assert live.get(f"/v1/printjobs/{job['id']}").json()["state"] == "printing"
    cups_stack.restart("agent-gateway")

    ended = wait_terminal(live, job["id"], agent, timeout=120)

    assert ended["state"] == "done", ended
    history = [e["state"] for e in live.get(f"/v1/printjobs/{job['id']}/events").json()["data"]]
    assert history == ["queued", "sent", "received", "printing", "done"]
    assert len(jobs_named(IPP_QUEUE, title, tmp_path)) == 1  # one CUPS job
    assert len(set(IPPEVE_SPOOL.glob("*.pdf")) - before) == 1  # one document reached the printer
