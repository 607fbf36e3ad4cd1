"""Why a printer cannot print, from CUPS to the client: queues of the tests' own that are paused,
whose printer does not answer, whose IPP printer reports reasons (a responder of the test's own
for those ippeveprinter cannot give), and a job that waits for paper on an ippeveprinter. Each
condition is checked in `GET /v1/printers/{id}`, in the feed and in a signed webhook delivery.

The agent here is enrolled in test mode, whose webhook endpoints may be plain http: the receiver
is an http server on 127.0.0.1 (live endpoints must be https, which a loopback receiver cannot
prove to the service's CA bundle)."""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from printcloud.devstack.ports import free_port
from printcloud.devstack.stack import Stack
from tests.e2e.agent_cups.conftest import RunningAgent, running_agent
from tests.e2e.agent_cups.cups_tools import IPPEVE_URI, make_pdf
from tests.e2e.agent_cups.printer_health import (
    PrinterEventWatch,
    move_queue,
    own_ippeveprinter,
    printer_event_watch,
    throwaway_queue,
    wait_for_printer,
)
from tests.e2e.agent_cups.test_cups_printing import unique, wait_terminal
from tests.e2e.client import api, eventually
from tests.e2e.tenants import create_key, create_org
from tests.support.ipp_responder import IDLE, STOPPED, IppResponder
from tests.support.receiver import Receiver

OUT_OF_PAPER = "Waiting: the printer reports media-empty (out of paper)"


@pytest.fixture(scope="module")
def sandbox(cups_stack: Stack) -> Iterator[httpx.Client]:
    key = create_key(cups_stack, create_org(cups_stack, "Health"), "test", "read,print,admin")
    with api(cups_stack.api_url, key) as client:
        yield client


@pytest.fixture(scope="module")
def health_agent(
    cups_stack: Stack, sandbox: httpx.Client, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningAgent]:
    key = sandbox.headers["Authorization"].removeprefix("Bearer ")
    with running_agent(cups_stack.api_url, key, tmp_path_factory.mktemp("health-agent")) as running:
        yield running


@pytest.fixture(scope="module")
def printer_events(sandbox: httpx.Client, health_agent: RunningAgent) -> Iterator[PrinterEventWatch]:
    with Receiver() as receiver:
        yield printer_event_watch(sandbox, receiver)


@pytest.fixture
def responder() -> Iterator[IppResponder]:
    printer = IppResponder().start()
    yield printer
    printer.stop()


def shown(printer: dict) -> None:
    """The printer as a client reads it, in the test's output."""
    print(json.dumps(printer, indent=2))


def test_a_paused_queue_is_offline_and_says_why(sandbox: httpx.Client, printer_events: PrinterEventWatch) -> None:
    with throwaway_queue(IPPEVE_URI) as queue:
        wait_for_printer(sandbox, queue, "online", [])
        reason = f"Replacing the drum {uuid.uuid4().hex[:6]}"
        subprocess.run(["cupsdisable", "-r", reason, queue], check=True)

        paused = wait_for_printer(sandbox, queue, "offline", ["paused"])
        shown(paused)
        assert paused["stateDetail"] == f"CUPS queue {queue} is stopped: {reason}"
        printer_events.published("printer.offline", paused)

        subprocess.run(["cupsenable", queue], check=True)
        back = wait_for_printer(sandbox, queue, "online", [])
        assert back["stateDetail"] == ""
        printer_events.published("printer.online", back)


def test_a_queue_whose_printer_does_not_answer_is_offline(
    sandbox: httpx.Client, printer_events: PrinterEventWatch, responder: IppResponder
) -> None:
    with throwaway_queue(responder.uri()) as queue:
        printer_events.published("printer.added", wait_for_printer(sandbox, queue, "online", []))
        closed = free_port()  # nothing listens there
        move_queue(queue, f"ipp://127.0.0.1:{closed}/ipp/print")

        gone = wait_for_printer(sandbox, queue, "offline", ["offline"])
        shown(gone)
        assert gone["stateDetail"] == f"The printer at 127.0.0.1:{closed} does not answer (connection refused)"
        printer_events.published("printer.offline", gone)

        move_queue(queue, responder.uri())
        printer_events.published("printer.online", wait_for_printer(sandbox, queue, "online", []))


def test_the_reasons_an_ipp_printer_gives_reach_the_client(
    sandbox: httpx.Client, printer_events: PrinterEventWatch, responder: IppResponder
) -> None:
    responder.state, responder.reasons, responder.message = STOPPED, ["door-open-error", "media-jam-error"], "Jam at B"
    with throwaway_queue(responder.uri()) as queue:
        jammed = wait_for_printer(sandbox, queue, "offline", ["door-open", "media-jam"])
        assert jammed["stateDetail"] == "The printer reports a door is open, a paper jam: Jam at B"
        printer_events.published("printer.added", jammed)

        responder.state, responder.reasons, responder.message = IDLE, ["toner-low-warning"], ""
        low = wait_for_printer(sandbox, queue, "online", ["toner-low"])
        assert low["stateDetail"] == "The printer reports toner low"
        printer_events.published("printer.online", low)

        responder.reasons = ["media-low-report", "toner-low-warning"]
        lower = wait_for_printer(sandbox, queue, "online", ["media-low", "toner-low"])
        changes = printer_events.published("printer.updated", lower)["changes"]
        assert changes["stateReasons"] == {"from": ["toner-low"], "to": ["media-low", "toner-low"]}


def test_a_job_waiting_for_paper_says_so_until_it_prints(
    sandbox: httpx.Client, health_agent: RunningAgent, printer_events: PrinterEventWatch, tmp_path: Path
) -> None:
    with own_ippeveprinter(tmp_path, "media-empty") as device, throwaway_queue(device.uri) as queue:
        idle = wait_for_printer(sandbox, queue, "online", [])
        device.hold.touch()
        content = base64.b64encode(make_pdf(1)).decode()
        body = {"printerId": idle["id"], "title": unique("Label"), "contentType": "pdf_base64", "content": content}
        created = sandbox.post("/v1/printjobs", json=body)
        assert created.status_code == 201, created.text
        job = created.json()

        def waiting() -> dict | None:
            found = sandbox.get(f"/v1/printjobs/{job['id']}").json()
            return found if found["stateMessage"] == OUT_OF_PAPER else None

        held = eventually(waiting, timeout=45, what="the job saying it waits for paper")
        assert held["state"] in ("sent", "received", "printing"), held
        empty = wait_for_printer(sandbox, queue, "online", ["media-empty"])
        assert empty["stateDetail"].startswith("The printer reports out of paper"), empty
        printer_events.published("printer.updated", empty)

        device.hold.unlink()  # paper loaded
        ended = wait_terminal(sandbox, job["id"], health_agent)
        assert (ended["state"], ended["stateMessage"]) == ("done", None)
        printer_events.published("printer.updated", wait_for_printer(sandbox, queue, "online", []))
