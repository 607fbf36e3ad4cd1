"""What a gateway refuses in an agent's messages, and the reason the agent reads (PROTOCOL.md §2-3)."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from printcloud.protocol.constants import REPORTABLE_STATES
from printcloud.protocol.messages import Hello, JobState, MessageBounds, Printers, ReportableState
from printcloud.protocol.parsing import (
    HELLO_EXPECTED,
    HELLO_TWICE,
    JOB_STATE_REFUSED,
    ProtocolError,
    UnknownMessage,
    parse_agent_message,
    parse_hello,
)
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER, virtual_printers

CAPABILITIES_REFUSED = "a printer's capabilities exceed 4096 bytes"
BOUNDS = MessageBounds(max_printers=4, max_capabilities_bytes=4096)
HELLO = {
    "type": "hello",
    "protocolVersion": 1,
    "computer": VIRTUAL_COMPUTER.to_wire(),
    "printers": [printer.to_wire() for printer in virtual_printers()],
}


def _refusal(message: dict[str, Any]) -> str:
    with pytest.raises(ProtocolError) as refused:
        parse_hello(message, BOUNDS)
    return str(refused.value)


def test_a_hello_round_trips_exactly() -> None:
    hello = parse_hello(HELLO, BOUNDS)
    assert hello.to_wire() == HELLO
    assert list(hello.to_wire()) == ["type", "protocolVersion", "computer", "printers"]


@pytest.mark.parametrize("version", [1, 1.0])
def test_version_one_is_accepted_as_json_compares_it(version: object) -> None:
    assert parse_hello({**HELLO, "protocolVersion": version}, BOUNDS).protocol_version == 1


@pytest.mark.parametrize(
    "message",
    [{**HELLO, "protocolVersion": 2}, {**HELLO, "protocolVersion": "1"}, {**HELLO, "type": "printers"}, {"type": 1}],
)
def test_anything_but_a_hello_of_version_one_comes_first(message: dict[str, Any]) -> None:
    assert _refusal(message) == HELLO_EXPECTED


def test_a_hello_without_a_version_is_refused() -> None:
    assert _refusal({k: v for k, v in HELLO.items() if k != "protocolVersion"}) == HELLO_EXPECTED


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"computer": None}, "computer must be an object"),
        ({"computer": {"os": "linux"}}, "hostname must be a string"),
        ({"computer": {"hostname": "h", "os": "linux", "osVersion": None}}, "osVersion must be a string"),
        ({"printers": None}, "printers must be an array of objects"),
        ({"printers": [{"name": "a"}, 3]}, "printers must be an array of objects"),
        ({"printers": [{"name": "a"}] * 5}, "a computer reports at most 4 printers"),
        ({"printers": [{"osName": "a"}]}, "name must be a string"),
        ({"printers": [{"name": "a", "state": 1}]}, "state must be a string"),
        ({"printers": [{"name": "a", "capabilities": [1]}]}, "capabilities must be an object"),
        (
            {"printers": [{"name": "a", "capabilities": {"x": "y" * 5000}}]},
            "a printer's capabilities exceed 4096 bytes",
        ),
        ({"printers": [{"name": "a", "defaultOptions": "A4"}]}, "defaultOptions must be an object"),
    ],
)
def test_a_malformed_hello_is_refused_naming_the_problem(change: dict[str, Any], reason: str) -> None:
    assert _refusal({**HELLO, **change}) == reason


def test_lenient_printer_fields_keep_their_meaning() -> None:
    printer: dict[str, Any] = {"name": "a", "isDefault": "yes", "capabilities": None, "defaultOptions": [], "extra": 1}
    parsed = parse_hello({**HELLO, "printers": [printer]}, BOUNDS).printers[0]
    assert (parsed.is_default, parsed.capabilities, parsed.default_options, parsed.state) == (True, {}, {}, "online")


def test_a_hello_may_omit_its_printers() -> None:
    assert parse_hello({k: v for k, v in HELLO.items() if k != "printers"}, BOUNDS).printers == []


def test_job_state_reports_are_read() -> None:
    message = {"type": "job.state", "jobId": "j", "state": "done", "message": "ok", "traceparent": "t", "x": 1}
    assert parse_agent_message(message, BOUNDS) == JobState(job_id="j", state="done", message="ok", traceparent="t")
    assert parse_agent_message({**message, "traceparent": 5}, BOUNDS) == JobState(
        job_id="j", state="done", message="ok"
    )


@pytest.mark.parametrize("change", [{"jobId": 1}, {"state": "accepted"}, {"message": ["x"]}, {"jobId": None}])
def test_a_malformed_job_state_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError, match=JOB_STATE_REFUSED):
        parse_agent_message({"type": "job.state", "jobId": "j", "state": "done", **change}, BOUNDS)


def test_printers_hello_again_and_unknown_types() -> None:
    printers = {"type": "printers", "printers": HELLO["printers"]}
    parsed = parse_agent_message(printers, BOUNDS)
    assert isinstance(parsed, Printers) and parsed.to_wire() == printers
    with pytest.raises(ProtocolError, match="printers must be an array of objects"):
        parse_agent_message({"type": "printers"}, BOUNDS)
    with pytest.raises(ProtocolError, match=HELLO_TWICE):
        parse_agent_message({"type": "hello", "anything": True}, BOUNDS)
    assert parse_agent_message({"type": "printers.later"}, BOUNDS) == UnknownMessage("printers.later")


def test_the_states_of_the_model_are_the_reportable_states() -> None:
    assert set(get_args(ReportableState)) == REPORTABLE_STATES


def test_the_agent_side_counts_nothing() -> None:
    many = [{"name": str(n), "capabilities": {"x": "y" * 5000}} for n in range(6)]
    assert len(Hello.model_validate({**HELLO, "printers": many}).printers) == 6


def test_state_reasons_are_normalised_keywords() -> None:
    printer = {
        "name": "label",
        "stateReasons": ["media-empty-error", "none", "Toner-Low-Warning", "not a keyword", "x-"],
    }
    hello = parse_hello({**HELLO, "printers": [printer]}, BOUNDS)
    assert hello.printers[0].state_reasons == ["media-empty", "toner-low", "x-"]
    assert hello.printers[0].to_wire()["stateReasons"] == ["media-empty", "toner-low", "x-"]


def test_an_agent_without_state_reasons_reports_none() -> None:
    hello = parse_hello({**HELLO, "printers": [{"name": "label"}, {"name": "office", "stateReasons": None}]}, BOUNDS)
    assert [p.state_reasons for p in hello.printers] == [[], []]


@pytest.mark.parametrize("reasons", ["media-empty", [1], {"media-empty": True}])
def test_state_reasons_that_are_not_an_array_of_strings_are_refused(reasons: object) -> None:
    assert _refusal({**HELLO, "printers": [{"name": "label", "stateReasons": reasons}]}) == (
        "stateReasons must be an array of strings"
    )


def test_reasons_and_detail_are_bounded() -> None:
    many = [f"vendor-reason-{n:03}" for n in range(100)]
    printer = {"name": "label", "stateReasons": many, "stateDetail": "x" * 5000}
    (reported,) = parse_hello({**HELLO, "printers": [printer]}, BOUNDS).printers
    assert reported.state_reasons == many[:32]
    assert len(reported.state_detail) == 1000
