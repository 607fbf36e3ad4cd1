"""What the printer-condition tests set up on the machine and how they watch the public side.

Each test makes CUPS queues of its own (the shared ones stay as they are) and removes them after;
a printer it needs is started on a free loopback port and stopped by its process id.
"""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from standardwebhooks import Webhook

from printcloud.devstack.ports import free_port, port_answers
from tests.e2e.client import eventually
from tests.support.receiver import Receiver

# The PPD cupsd generated for the machine's IPP Everywhere queue (scripts/ci-cups.sh): a queue made
# with it needs no printer to answer at creation, as `-m everywhere` would.
EVERYWHERE_PPD = Path("/etc/cups/ppd/printcloud-ipp.ppd")
PRINTER_EVENTS = ["printer.added", "printer.online", "printer.offline", "printer.updated"]


@contextlib.contextmanager
def throwaway_queue(device_uri: str) -> Iterator[str]:
    """A CUPS queue of the test's own printing to `device_uri`; removed with its jobs afterwards."""
    name = f"printcloud-health-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["lpadmin", "-p", name, "-E", "-v", device_uri, "-P", str(EVERYWHERE_PPD), "-o", "printer-is-shared=false"],
        check=True,
        capture_output=True,
    )
    try:
        yield name
    finally:
        subprocess.run(["cancel", "-a", name], check=False, capture_output=True)
        subprocess.run(["lpadmin", "-x", name], check=False, capture_output=True)


def move_queue(queue: str, device_uri: str) -> None:
    subprocess.run(["lpadmin", "-p", queue, "-v", device_uri], check=True, capture_output=True)


@dataclass
class OwnIppEverywherePrinter:
    """An ippeveprinter whose print command reports `reason` and holds each job while `hold` exists."""

    uri: str
    hold: Path


_HOLDING_COMMAND = """#!/bin/sh
# ippeveprinter reads STATE: lines of its print command as the printer's state reasons.
echo "STATE: +{reason}-error" >&2
while [ -e "{hold}" ]; do sleep 0.2; done
echo "STATE: -{reason}-error" >&2
exit 0
"""


@contextlib.contextmanager
def own_ippeveprinter(folder: Path, reason: str) -> Iterator[OwnIppEverywherePrinter]:
    port = free_port()
    hold = folder / "hold"
    command = folder / "print-command"
    command.write_text(_HOLDING_COMMAND.format(reason=reason, hold=hold))
    command.chmod(0o755)
    log = (folder / "ippeveprinter.log").open("wb")
    process = subprocess.Popen(
        # A name of its own: ippeveprinter announces itself over DNS-SD (Avahi, loopback only).
        ["ippeveprinter", "-p", str(port), "-M", "PrintCloud", "-m", "Health Test", "-d", str(folder),
         "-f", "application/pdf,image/pwg-raster", "-c", str(command), f"PrintCloud Health {uuid.uuid4().hex[:6]}"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        eventually(lambda: process.poll() is None and port_answers(port), timeout=20, what="ippeveprinter up")
        yield OwnIppEverywherePrinter(f"ipp://127.0.0.1:{port}/ipp/print", hold)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def printer_named(live: httpx.Client, name: str) -> dict[str, Any] | None:
    return next((p for p in live.get("/v1/printers", params={"limit": 100}).json()["data"] if p["name"] == name), None)


def wait_for_printer(live: httpx.Client, name: str, state: str, reasons: list[str]) -> dict[str, Any]:
    """The printer in the API once it has that state and those reasons, fetched by id."""

    def reached() -> dict[str, Any] | None:
        found = printer_named(live, name)
        if found is None:
            return None
        printer: dict[str, Any] = live.get(f"/v1/printers/{found['id']}").json()
        return printer if (printer["state"], printer["stateReasons"]) == (state, reasons) else None

    return eventually(reached, timeout=45, what=f"printer {name} {state} with {reasons}")


CONDITION_FIELDS = ("id", "computerId", "state", "stateReasons", "stateDetail")


def _holds(data: dict[str, Any], subset: dict[str, Any]) -> bool:
    return all(data.get(key) == value for key, value in subset.items())


@dataclass
class PrinterEventWatch:
    """The printer events of one organization as its clients see them: the feed (`GET /v1/events`,
    read onward from where it was) and signed deliveries to a webhook receiver on 127.0.0.1."""

    live: httpx.Client
    receiver: Receiver
    secret: str
    feed: list[dict[str, Any]] = field(default_factory=list)
    cursor: dict[str, str] = field(default_factory=dict)

    def read_feed(self) -> list[dict[str, Any]]:
        while True:
            page = self.live.get("/v1/events", params={"dir": "asc", "limit": 100, **self.cursor}).json()
            self.feed.extend(page["data"])
            if page["nextCursor"]:
                self.cursor["after"] = page["nextCursor"]
            if not page["hasMore"]:
                return self.feed

    def deliveries(self) -> list[dict[str, Any]]:
        """The payloads received, each signature checked as Standard Webhooks does."""
        hook = Webhook(self.secret)
        return [hook.verify(r.body, r.headers) for r in self.receiver.received("/printers")]

    def published(self, event_type: str, printer: dict[str, Any]) -> dict[str, Any]:
        """The event announcing the printer's condition as the API shows it, found in the feed and
        in a webhook delivery with the same data; returns that data."""
        condition = {key: printer[key] for key in CONDITION_FIELDS}

        def in_feed() -> dict[str, Any] | None:
            return next((e for e in self.read_feed() if e["type"] == event_type and _holds(e["data"], condition)), None)

        def delivered() -> dict[str, Any] | None:
            return next(
                (p for p in self.deliveries() if p["type"] == event_type and _holds(p["data"], condition)), None
            )

        fed = eventually(in_feed, timeout=30, what=f"{event_type} {condition} in the feed")
        sent = eventually(delivered, timeout=30, what=f"{event_type} {condition} delivered")
        assert sent["data"] == fed["data"], (sent, fed)
        extra = {"printer.added": {"name", "displayName"}, "printer.updated": {"changes"}}.get(event_type, set())
        assert set(fed["data"]) == {*CONDITION_FIELDS, *extra}, fed
        data: dict[str, Any] = fed["data"]
        return data


def printer_event_watch(live: httpx.Client, receiver: Receiver) -> PrinterEventWatch:
    created = live.post(
        "/v1/webhooks",
        json={"url": receiver.url("/printers"), "description": "printer health", "events": PRINTER_EVENTS},
    )
    assert created.status_code == 201, created.text
    watch = PrinterEventWatch(live, receiver, created.json()["secret"])
    watch.read_feed()  # from here on: what came before is not what the tests look for
    watch.feed.clear()
    return watch
