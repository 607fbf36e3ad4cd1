"""A stack of its own for the lifecycle tests: job timers shortened to seconds, fast replica
heartbeats and sweeps, and two agent-gateway replicas. Its fixtures have names of their own so
they never mix with the shared stack of `tests/e2e/conftest.py`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import PDF_BASE64, api, eventually
from tests.e2e.event_log import EventLog
from tests.e2e.lifecycle.scripted_agent import PRINTER_NAME, Reply, ScriptedAgent, always
from tests.e2e.stacks import running_stack
from tests.e2e.tenants import create_key, create_org

RESEND_AFTER_SECONDS = 2.0
SPOOLER_TIMEOUT_SECONDS = 3.0
# Devices marks a silent replica's computers offline within timeout + sweep interval.
GATEWAY_TIMEOUT_SECONDS = 2.0
GATEWAY_SWEEP_SECONDS = 0.5
OFFLINE_BOUND_SECONDS = GATEWAY_TIMEOUT_SECONDS + GATEWAY_SWEEP_SECONDS

TIMERS = {
    "PRINTCLOUD_RESEND_AFTER_SECONDS": str(RESEND_AFTER_SECONDS),
    "PRINTCLOUD_MAX_RESENDS": "3",
    "PRINTCLOUD_SPOOLER_TIMEOUT_SECONDS": str(SPOOLER_TIMEOUT_SECONDS),
    "PRINTCLOUD_TIMER_POLL_SECONDS": "0.2",
    "PRINTCLOUD_INSTANCE_HEARTBEAT_SECONDS": "0.5",
    "PRINTCLOUD_GATEWAY_INSTANCE_TIMEOUT_SECONDS": str(GATEWAY_TIMEOUT_SECONDS),
    "PRINTCLOUD_GATEWAY_SWEEP_SECONDS": str(GATEWAY_SWEEP_SECONDS),
}


@pytest.fixture(scope="package")
def lifecycle_stack(tmp_path_factory: pytest.TempPathFactory, service_logs) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("lifecycle")
    with running_stack(data_dir, service_logs, TIMERS, agent_gateway_replicas=2) as running:
        yield running


@pytest.fixture(scope="package")
def domain_events(lifecycle_stack: Stack) -> Iterator[EventLog]:
    log = EventLog(lifecycle_stack.describe()["kafka_bootstrap_servers"])
    log.start()
    yield log
    log.stop()


def wait_for_event(
    events: EventLog, event_type: str, resource_id: str, where: Callable[[dict], bool] = lambda _: True
) -> dict:
    """The `data` of the newest `event_type` about `resource_id` matching `where`, once published."""
    message = eventually(lambda: events.find(event_type, resource_id, where), what=f"{event_type} of {resource_id}")
    return message.data


@dataclass
class Org:
    id: str
    admin: httpx.Client  # test mode, read + print + admin
    live_admin: httpx.Client
    reader: httpx.Client  # test mode, read + print: no admin


def _org(stack: Stack, name: str) -> Org:
    org_id = create_org(stack, name)

    def client(mode: str, scopes: str) -> httpx.Client:
        return api(stack.api_url, create_key(stack, org_id, mode, scopes))

    return Org(
        org_id, client("test", "read,print,admin"), client("live", "read,print,admin"), client("test", "read,print")
    )


@pytest.fixture(scope="package")
def org(lifecycle_stack: Stack) -> Org:
    return _org(lifecycle_stack, "Lifecycle")


@pytest.fixture(scope="package")
def other_org(lifecycle_stack: Stack) -> Org:
    return _org(lifecycle_stack, "Elsewhere")


@dataclass
class Device:
    """An enrolled computer, its scripted agent and its one printer."""

    computer_id: str
    credential: str
    agent: ScriptedAgent
    printer_id: str


def printer_of(client: httpx.Client, computer_id: str) -> dict | None:
    printers = client.get(f"/v1/computers/{computer_id}/printers").json()["data"]
    return next((p for p in printers if p["name"] == PRINTER_NAME), None)


def computer_state(client: httpx.Client, computer_id: str) -> str:
    return client.get(f"/v1/computers/{computer_id}").json()["state"]


@pytest.fixture
def enroll(lifecycle_stack: Stack, org: Org) -> Iterator[Callable[..., Device]]:
    """Enrols a computer and connects a scripted agent to a replica (the first by default)."""
    agents: list[ScriptedAgent] = []

    def make(script: Callable[[str, int], Reply] | None = None, replica: str = "agent-gateway") -> Device:
        enrolled = org.admin.post("/v1/agent/enroll", json={"hostname": "lab-pc"}).json()
        agent = ScriptedAgent(enrolled["credential"], script or always(Reply.PRINT))
        agents.append(agent)
        agent.connect(lifecycle_stack.agent_gateway_urls[replica])
        printer = eventually(lambda: printer_of(org.admin, enrolled["computerId"]), what="the agent's printer")
        return Device(enrolled["computerId"], enrolled["credential"], agent, printer["id"])

    yield make
    for agent in agents:
        agent.shutdown()


def submit(client: httpx.Client, printer_id: str, **fields: object) -> dict:
    body = {"printerId": printer_id, "title": "lifecycle", "contentType": "pdf_base64", "content": PDF_BASE64}
    response = client.post("/v1/printjobs", json={**body, **fields})
    assert response.status_code == 201, response.text
    return response.json()


def history(client: httpx.Client, job_id: str) -> list[dict]:
    return client.get(f"/v1/printjobs/{job_id}/events").json()["data"]


def wait_for_state(client: httpx.Client, job_id: str, state: str, timeout: float = 30) -> dict:
    return eventually(
        lambda: (job := client.get(f"/v1/printjobs/{job_id}").json())["state"] == state and job,
        timeout=timeout,
        what=f"job {job_id} in {state}",
    )
