"""The single-file agent of `make agent-dist`, run by the system's own python3 with nothing of this
virtualenv: it lists the CUPS queues, enrols with a pairing code, and prints a job through the
whole stack into cups-pdf, whose output file is checked."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.agent_cups.conftest import RunningAgent
from tests.e2e.agent_cups.cups_tools import CUPS_PDF_OUT, IPP_QUEUE, PDF_QUEUE, make_pdf, pdf_pages
from tests.e2e.agent_cups.test_cups_printing import submit, wait_terminal
from tests.e2e.client import api, eventually
from tests.e2e.tenants import create_key, create_org
from tests.support.agent_dist import AgentDist, agent_dist, system_python

ROOT = Path(__file__).resolve().parents[3]

RUN = ("run", "--backend", "cups", "--printer-poll", "1")


@pytest.fixture(scope="module")
def single_file(tmp_path_factory: pytest.TempPathFactory) -> AgentDist:
    return agent_dist(tmp_path_factory.mktemp("agent-dist"))


@pytest.fixture(scope="module")
def clean_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """No virtualenv, no PYTHONPATH: only what a freshly installed computer has, and one PEX_ROOT
    for the module so the file unpacks its libraries once."""
    home = tmp_path_factory.mktemp("home")
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "PEX_ROOT": str(home / "pex"), "PYTHONUNBUFFERED": "1"}


@pytest.fixture(scope="module")
def fleet(cups_stack: Stack) -> Iterator[httpx.Client]:
    """An organization of its own, so its printers never mix with those of the suite's other agent."""
    key = create_key(cups_stack, create_org(cups_stack, "SingleFile"), "live", "read,print,admin")
    with api(cups_stack.api_url, key) as client:
        yield client


def _agent(
    single_file: AgentDist, clean_env: dict[str, str], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [system_python(), str(single_file.pex), *args],
        env=clean_env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_the_single_file_lists_the_cups_queues_with_a_bare_system_python(
    single_file: AgentDist, clean_env: dict[str, str]
) -> None:
    listed = _agent(single_file, clean_env, "printers", "--backend", "cups")
    assert listed.returncode == 0, listed.stderr
    printers = {printer["name"]: printer for printer in json.loads(listed.stdout)}
    assert {PDF_QUEUE, IPP_QUEUE} <= set(printers)
    assert printers[PDF_QUEUE]["capabilities"]["papers"]


def test_the_single_file_enrols_with_a_pairing_code_and_prints_through_cups(
    single_file: AgentDist,
    clean_env: dict[str, str],
    cups_stack: Stack,
    fleet: httpx.Client,
    tmp_path: Path,
) -> None:
    created = fleet.post("/v1/agent/pairing-codes", json={"description": "single file"})
    assert created.status_code == 201, created.text
    config = tmp_path / "agent.json"
    enrolled = _agent(
        single_file, clean_env, "--config", str(config), "enroll", "--server", cups_stack.api_url, "--code", "-",
        "--name", "Single-file till", stdin=created.json()["code"] + "\n",
    )  # fmt: skip
    assert enrolled.returncode == 0, enrolled.stderr
    assert config.stat().st_mode & 0o077 == 0
    computer_id = json.loads(config.read_text())["computerId"]
    assert fleet.get(f"/v1/computers/{computer_id}").json()["name"] == "Single-file till"

    log = tmp_path / "agent.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [system_python(), str(single_file.pex), "--config", str(config), *RUN],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=clean_env,
        )
    agent = RunningAgent(process, log, config)
    try:

        def pdf_printer() -> dict | None:
            assert process.poll() is None, f"the single-file agent exited:\n{agent.output()}"
            printers = fleet.get(f"/v1/computers/{computer_id}/printers").json()["data"]
            return next((p for p in printers if p["name"] == PDF_QUEUE and p["state"] == "online"), None)

        printer = eventually(pdf_printer, timeout=90, what="the single-file agent's cups-pdf queue online")
        # The single file carries no package metadata: the release it reports comes from its build.
        reported = fleet.get(f"/v1/computers/{computer_id}").json()["agentVersion"]
        assert reported == (ROOT / "VERSION").read_text().strip()
        before = set(CUPS_PDF_OUT.glob("*.pdf"))
        job = submit(fleet, printer, f"Single file {uuid.uuid4().hex[:8]}", make_pdf(2), {"copies": 1})
        ended = wait_terminal(fleet, job["id"], agent, timeout=90)
        assert ended["state"] == "done", (ended, agent.output())
        new = eventually(lambda: set(CUPS_PDF_OUT.glob("*.pdf")) - before, what="the cups-pdf output file")
        assert len(new) == 1, new
        assert pdf_pages(new.pop())[0] == 2
    finally:
        agent.stop()
    assert "Traceback" not in agent.output()
