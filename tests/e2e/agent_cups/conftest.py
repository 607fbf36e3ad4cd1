"""A stack of its own, a live-mode organization, and the real agent (`printcloud-agent run
--backend cups`) enrolled through the API and printing to the machine's cupsd."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.agent_cups.cups_tools import IPP_QUEUE, PDF_QUEUE, missing_setup
from tests.e2e.client import api, eventually
from tests.e2e.stacks import LogFile, running_stack
from tests.e2e.tenants import create_key, create_org

AGENT_CLI = str(Path(sys.executable).with_name("printcloud-agent"))


@pytest.fixture(scope="package")
def cups_ready() -> None:
    problem = missing_setup()
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="package")
def cups_stack(cups_ready: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("cups-stack")
    # Webhooks may be delivered to the tests' receivers on 127.0.0.1 (and nowhere else private).
    env = {"PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32"}
    with running_stack(data_dir, LogFile(data_dir / "services.log"), env) as running:
        yield running


@pytest.fixture(scope="package")
def live(cups_stack: Stack) -> Iterator[httpx.Client]:
    key = create_key(cups_stack, create_org(cups_stack, "Cups"), "live", "read,print,admin")
    with api(cups_stack.api_url, key) as client:
        yield client


@dataclass
class RunningAgent:
    process: subprocess.Popen[bytes]
    log: Path
    config: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-5000:]

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def running_agent(api_url: str, key: str, folder: Path) -> Iterator[RunningAgent]:
    """`printcloud-agent` enrolled with `key` (its computer is in the key's mode), running the CUPS
    backend and asking cupsd for its printers every second."""
    config = folder / "agent.json"
    enrolled = subprocess.run(
        [AGENT_CLI, "--config", str(config), "enroll", "--server", api_url, "--api-key", key],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert enrolled.returncode == 0, enrolled.stderr
    assert config.stat().st_mode & 0o077 == 0, "the credential file must be private to its user"
    log = folder / "agent.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [AGENT_CLI, "--config", str(config), "run", "--backend", "cups", "--printer-poll", "1"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    running = RunningAgent(process, log, config)
    yield running
    running.stop()
    print(f"\nagent log: {log}")


@pytest.fixture(scope="package")
def agent(cups_stack: Stack, live: httpx.Client, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningAgent]:
    key = live.headers["Authorization"].removeprefix("Bearer ")
    with running_agent(cups_stack.api_url, key, tmp_path_factory.mktemp("agent")) as running:
        yield running


@pytest.fixture(scope="package")
def cups_printers(live: httpx.Client, agent: RunningAgent) -> dict[str, dict]:
    """The live printers the agent reported, by name, once both queues are online."""

    def online() -> dict[str, dict] | None:
        assert agent.process.poll() is None, f"the agent exited:\n{agent.output()}"
        printers = {p["name"]: p for p in live.get("/v1/printers").json()["data"]}
        if all(printers.get(q, {}).get("state") == "online" for q in (PDF_QUEUE, IPP_QUEUE)):
            return printers
        return None

    return eventually(online, timeout=60, what="the CUPS queues online in the API")
