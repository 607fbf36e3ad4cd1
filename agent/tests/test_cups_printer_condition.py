"""A CUPS queue's condition from cupsd's and its device's attributes, and how the backend asks the
device: the pure rules, then `ask_device` and discovery against an IPP printer on loopback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from printcloud.agent.backends.cups import ipp
from printcloud.agent.backends.cups.backend import CupsBackend
from printcloud.agent.backends.cups.connection import CupsConnection, ask_device
from printcloud.agent.backends.cups.printer_condition import (
    STATE_ATTRIBUTES,
    Condition,
    DeviceStatus,
    printer_condition,
)
from tests.support.ipp_responder import IDLE, STOPPED, IppResponder

QUEUE: ipp.Attributes = {
    "printer-name": ["zebra"],
    "printer-state": [3],
    "printer-state-reasons": ["none"],
    "printer-state-message": [""],
    "printer-is-accepting-jobs": [True],
    "device-uri": ["ipp://127.0.0.1:9/ipp/print"],
    "media-supported": ["na_letter_8.5x11in"],
}


def queue(**changes: list[ipp.Value]) -> ipp.Attributes:
    return {**QUEUE, **{name.replace("_", "-"): value for name, value in changes.items()}}


def device(state: int, *reasons: str, message: str = "") -> DeviceStatus:
    attributes: ipp.Attributes = {
        "printer-state": [state],
        "printer-state-reasons": list(reasons) or ["none"],
        "printer-state-message": [message],
    }
    return DeviceStatus("127.0.0.1:9", attributes)


def test_an_idle_queue_is_online_with_nothing_to_say() -> None:
    assert printer_condition(QUEUE) == Condition("online", [], "")
    assert printer_condition(QUEUE, device(IDLE)) == Condition("online", [], "")


def test_a_stopped_queue_is_offline_and_paused_with_the_administrators_reason() -> None:
    paused = queue(printer_state=[5], printer_state_reasons=["paused"], printer_state_message=["Replacing the drum"])
    assert printer_condition(paused) == Condition(
        "offline", ["paused"], "CUPS queue zebra is stopped: Replacing the drum"
    )
    assert printer_condition(queue(printer_is_accepting_jobs=[False])) == Condition(
        "offline", [], "CUPS queue zebra is rejecting jobs"
    )


def test_reasons_lose_their_severity_and_cupsds_end_of_job_marker() -> None:
    printing = queue(
        printer_state=[4],
        printer_state_reasons=["cups-waiting-for-job-completed", "media-empty-warning"],
        printer_state_message=["Printing."],
    )
    assert printer_condition(printing) == Condition("online", ["media-empty"], "CUPS reports out of paper: Printing.")


def test_reasons_that_mean_the_printer_cannot_be_reached_make_it_offline() -> None:
    lost = queue(printer_state_reasons=["offline-report"], printer_state_message=["Unplugged?"])
    assert printer_condition(lost) == Condition("offline", ["offline"], "CUPS reports offline: Unplugged?")


def test_the_device_speaks_for_itself_and_its_stopped_state_is_offline() -> None:
    low = device(IDLE, "toner-low-warning")
    assert printer_condition(QUEUE, low) == Condition("online", ["toner-low"], "The printer reports toner low")
    jammed = device(STOPPED, "media-jam-error", "door-open-error", message="Jam behind door B")
    assert printer_condition(QUEUE, jammed) == Condition(
        "offline", ["door-open", "media-jam"], "The printer reports a door is open, a paper jam: Jam behind door B"
    )
    assert printer_condition(QUEUE, device(STOPPED)) == Condition("offline", [], "The printer is stopped")


def test_a_device_that_does_not_answer_is_offline() -> None:
    gone = DeviceStatus("127.0.0.1:9", failure="connection refused")
    assert printer_condition(QUEUE, gone) == Condition(
        "offline", ["offline"], "The printer at 127.0.0.1:9 does not answer (connection refused)"
    )


def test_a_stopped_queue_and_its_devices_reasons_are_both_said() -> None:
    paused = queue(printer_state=[5], printer_state_reasons=["paused"], printer_state_message=["Drum"])
    assert printer_condition(paused, device(IDLE, "media-empty")) == Condition(
        "offline", ["media-empty", "paused"], "CUPS queue zebra is stopped: Drum; The printer reports out of paper"
    )


@pytest.fixture
def printer() -> Iterator[IppResponder]:
    responder = IppResponder().start()
    yield responder
    responder.stop()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_ask_device_reads_the_state_and_never_sends_the_uris_credentials(printer: IppResponder) -> None:
    printer.state, printer.reasons, printer.message = STOPPED, ["media-jam-error"], "Jam"
    status = await ask_device(printer.uri(userinfo="alice:s3cret"), STATE_ATTRIBUTES)
    assert status is not None and status.failure is None
    assert status.where == f"127.0.0.1:{printer.port}"
    assert status.attributes["printer-state-reasons"] == ["media-jam-error"]
    (request,) = printer.requests
    assert request["attributes"]["printer-uri"] == printer.uri()
    assert "s3cret" not in repr(request)


async def test_ask_device_says_why_a_device_did_not_answer(printer: IppResponder) -> None:
    refused = await ask_device(f"ipp://127.0.0.1:{closed_port()}/ipp/print", STATE_ATTRIBUTES)
    assert refused is not None and refused.failure == "connection refused"
    printer.delay = 1.0
    slow = await ask_device(printer.uri(), STATE_ATTRIBUTES, timeout=0.2)
    assert slow is not None and slow.failure == "no answer within 0.2 s"
    assert await ask_device("socket://127.0.0.1:9100", STATE_ATTRIBUTES) is None


class FakeCups(CupsConnection):
    """cupsd as the backend sees it: one queue whose attributes the test changes."""

    def __init__(self, queue: ipp.Attributes) -> None:
        super().__init__(host="127.0.0.1:9")
        self.queue = queue

    async def request(self, operation: int, operation_attributes: list[ipp.Attribute], **_: Any) -> ipp.Response:
        if operation == ipp.CUPS_GET_PRINTERS:
            return ipp.Response(0, 1, [(ipp.PRINTER_GROUP, self.queue)])
        return ipp.Response(0, 1, [(ipp.PRINTER_GROUP, {"printer-name": ["zebra"]})])


async def test_discovery_asks_the_device_when_due_or_when_its_queue_changes(printer: IppResponder) -> None:
    cups = FakeCups(queue(device_uri=[printer.uri()]))
    backend = CupsBackend(cups, device_status_seconds=3600)
    printer.reasons = ["toner-low-warning"]
    (first,) = await backend.discover()
    assert (first.state, first.state_reasons, first.state_detail) == (
        "online",
        ["toner-low"],
        "The printer reports toner low",
    )
    assert printer.asked() == 1

    printer.state, printer.reasons = STOPPED, ["media-empty-error"]
    await backend.discover()
    assert printer.asked() == 1, "an unchanged queue does not ask its device again before it is due"

    cups.queue = queue(device_uri=[printer.uri()], printer_state=[4])  # a job started
    (changed,) = await backend.discover()
    assert printer.asked() == 2
    assert (changed.state, changed.state_reasons) == ("offline", ["media-empty"])


async def test_a_device_that_stops_answering_keeps_its_capabilities(printer: IppResponder) -> None:
    printer.max_copies = 77
    cups = FakeCups(queue(device_uri=[printer.uri()]))
    backend = CupsBackend(cups, device_status_seconds=0)
    (answering,) = await backend.discover()
    assert answering.capabilities["copies"] == 77
    printer.stop()
    (silent,) = await backend.discover()
    assert (silent.state, silent.state_reasons) == ("offline", ["offline"])
    assert silent.state_detail == f"The printer at 127.0.0.1:{printer.port} does not answer (connection refused)"
    assert silent.capabilities == answering.capabilities
