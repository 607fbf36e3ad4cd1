"""How the gateway ends an agent's connection: over a bound (rate, printers, capabilities, nesting,
size, text) or over a report it could not record, always with a close frame that says why, never a
dropped socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from printcloud.agent_gateway.domain.agent_limits import AgentLimits, TokenBucket
from printcloud.agent_gateway.transport.connection import fitted_close_reason
from printcloud.contracts.errors import ApiError
from printcloud.core.kafka.envelope import Message
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER

if TYPE_CHECKING:
    from conftest import Stack

HEADERS = {"Authorization": "Bearer agent-credential-1"}
COMPUTER_ID = "0190a000-0000-7000-8000-000000000001"
JOB_ID = "0190a000-0000-7000-8000-0000000000a1"
AGENT_V1 = [Subprotocol("printcloud.agent.v1")]


def _hello(printers: list[dict[str, object]]) -> str:
    return json.dumps(
        {"type": "hello", "protocolVersion": 1, "computer": VIRTUAL_COMPUTER.to_wire(), "printers": printers}
    )


def _printer(n: int, capabilities: dict[str, object] | None = None) -> dict[str, object]:
    return {"name": f"p{n}", "capabilities": capabilities or {"duplex": True}}


@asynccontextmanager
async def _socket(stack: Stack) -> AsyncIterator[ClientConnection]:
    async with connect(stack.ws_url, additional_headers=HEADERS, subprotocols=AGENT_V1, max_size=None) as ws:
        yield ws


async def _closed(ws: ClientConnection) -> tuple[int | None, str | None]:
    with pytest.raises(ConnectionClosed):
        while True:
            await ws.recv()
    return ws.close_code, ws.close_reason


async def test_an_agent_past_its_message_rate_is_closed_with_4429(stack: Stack) -> None:
    stack.agents.limits = AgentLimits(messages_per_second=1, message_burst=5)
    async with _socket(stack) as ws:
        await ws.send(_hello([]))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for _ in range(20):
            await ws.send(json.dumps({"type": "something.new"}))
        assert await _closed(ws) == (4429, "more than 1 messages per second")


async def test_a_burst_within_the_limit_is_served(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-x")
    stack.agents.limits = AgentLimits(messages_per_second=1, message_burst=50)
    async with _socket(stack) as ws:
        await ws.send(_hello([]))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for _ in range(49):
            await ws.send(json.dumps({"type": "something.new"}))
        # The fiftieth reaches the jobs service, so the gateway has read every one before it.
        await ws.send(json.dumps({"type": "job.state", "jobId": JOB_ID, "state": "received"}))
        await stack.recorder.wait_for(lambda: bool(stack.recorder.named("ReportJobState")))
        assert ws.close_code is None


async def test_too_many_printers_are_refused_with_4400(stack: Stack) -> None:
    stack.agents.limits = AgentLimits(max_printers=3)
    async with _socket(stack) as ws:
        await ws.send(_hello([_printer(n) for n in range(4)]))
        assert await _closed(ws) == (4400, "a computer reports at most 3 printers")
    assert stack.recorder.named("AgentConnected") == []


async def test_oversized_capabilities_are_refused_with_4400(stack: Stack) -> None:
    async with _socket(stack) as ws:
        await ws.send(_hello([_printer(1, {"papers": {f"paper-{n}": [1, 2] for n in range(10_000)}})]))
        assert await _closed(ws) == (4400, "a printer's capabilities exceed 65536 bytes")


async def test_deep_nesting_is_closed_with_4400_not_dropped(stack: Stack) -> None:
    async with _socket(stack) as ws:
        await ws.send('{"type": "hello", "x": ' + "[" * 5000 + "]" * 5000 + "}")
        assert await _closed(ws) == (4400, "JSON nested deeper than 16 levels")


async def test_a_message_over_the_size_limit_is_closed_with_1009(stack: Stack) -> None:
    async with _socket(stack) as ws:
        await ws.send(_hello([_printer(1, {"blob": "x" * (2 * 1024 * 1024)})]))
        code, _ = await _closed(ws)
    assert code == 1009


def test_the_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=2, burst=3, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] = 0.5
    assert [bucket.take() for _ in range(2)] == [True, False]
    now[0] = 100.0
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_an_agent_keeping_up_with_one_keys_job_rate_is_never_refused() -> None:
    """20 jobs a second (one API key's limit), three reports each, for a minute, after a reconnect
    that re-reported 300 states at once: every message is taken."""
    limits, now = AgentLimits(), [0.0]
    bucket = TokenBucket(limits.messages_per_second, limits.message_burst, clock=lambda: now[0])
    assert all(bucket.take() for _ in range(300))
    for tick in range(1, 60 * 60 + 1):
        now[0] = tick / 60
        assert bucket.take(), f"refused at {now[0]:.2f} s"


async def test_unstorable_text_is_closed_with_4400_naming_the_field(stack: Stack) -> None:
    hello = json.loads(_hello([_printer(1)]))
    hello["printers"][0]["name"] = "lab\u0000"
    async with _socket(stack) as ws:
        await ws.send(json.dumps(hello))
        assert await _closed(ws) == (4400, "printers.0.name must not contain NUL characters or unpaired surrogates")
    assert stack.recorder.named("AgentConnected") == []


@pytest.mark.parametrize("when", ["in the hello", "after the welcome"])
async def test_a_refusal_naming_a_long_field_is_cut_to_fit_the_close_frame(stack: Stack, when: str) -> None:
    # The reason names the field, and the agent chose its name: past 123 bytes the close frame would
    # break the protocol and the agent would see 1006 without the code.
    deep = {"é" * 40: {"0" * 60: ["\u0000"]}}
    async with _socket(stack) as ws:
        if when == "in the hello":
            hello = json.loads(_hello([]))
            hello["computer"]["extra"] = deep
            await ws.send(json.dumps(hello))
        else:
            await ws.send(_hello([]))
            assert json.loads(await ws.recv())["type"] == "welcome"
            await ws.send(json.dumps({"type": "printers", "printers": [], "detail": deep}))
        code, reason = await _closed(ws)
    assert code == 4400 and reason is not None
    assert len(reason.encode()) <= 123 and reason.endswith("…")
    assert reason.startswith("computer.extra." if when == "in the hello" else "detail.")


def test_a_close_reason_is_cut_on_a_character_boundary() -> None:
    assert fitted_close_reason("short") == "short"
    exact = "x" * 123
    assert fitted_close_reason(exact) == exact
    cut = fitted_close_reason("é" * 100)  # two bytes each
    assert cut == "é" * 60 + "…" and len(cut.encode()) == 123


@pytest.mark.parametrize(
    ("refusal", "close"),
    [
        ("service_unavailable", (1011, "printers not recorded; reconnect and report again")),
        ("invalid_request", (4400, "printer report refused")),
    ],
)
async def test_a_printer_report_devices_did_not_take_closes_the_connection(
    stack: Stack, refusal: str, close: tuple[int, str]
) -> None:
    stack.devices.recorder.fail_next("ReportPrinters", ApiError(refusal, "printer report refused"))
    async with _socket(stack) as ws:
        await ws.send(_hello([]))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "printers", "printers": [_printer(1)]}))
        assert await _closed(ws) == close


async def test_an_agent_that_stops_reading_is_dropped_without_holding_up_the_commands(stack: Stack) -> None:
    stack.agents.limits = AgentLimits(max_queued_messages=10, send_timeout_seconds=1.0)
    async with connect(stack.ws_url, additional_headers=HEADERS, subprotocols=AGENT_V1, max_queue=1) as ws:
        await ws.send(_hello([]))
        assert json.loads(await ws.recv())["type"] == "welcome"
        # The agent reads nothing more: its socket's buffers fill, then its queue at the gateway.
        # Every command is taken at once all the same: none waits for this agent's network.
        cancel = {"computerId": COMPUTER_ID, "jobId": "j" * 4000}
        async with asyncio.timeout(30):  # a handler that waited on this agent would never finish
            for _ in range(5000):
                await stack.commands(Message(type="job.cancel", organization_id="o", mode="test", data=cancel))
        await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentDisconnected")), timeout=15)
        assert stack.agents.registry.get(COMPUTER_ID) is None
        # Reading again, the agent gets what was buffered, then the end of the connection.
        code, _ = await _closed(ws)
    assert code == 1006


@pytest.mark.parametrize(
    ("refusal", "acknowledged"), [(None, True), ("conflict", True), ("service_unavailable", False)]
)
async def test_a_job_state_is_acknowledged_once_jobs_took_it_and_only_then(
    stack: Stack, refusal: str | None, acknowledged: bool
) -> None:
    """A repeat or a late report is taken too (the agent can do nothing better); one jobs could
    not record closes the connection unacknowledged, so the agent reports it again."""
    stack.add_job(JOB_ID, b"%PDF-x")
    if refusal is not None:
        stack.recorder.fail_next("ReportJobState", ApiError(refusal, "job state refused"))
    async with _socket(stack) as ws:
        await ws.send(_hello([]))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "job.state", "jobId": JOB_ID, "state": "received"}))
        if acknowledged:
            async with asyncio.timeout(10):  # without an acknowledgement the agent waits forever
                assert json.loads(await ws.recv()) == {
                    "type": "job.state.recorded",
                    "jobId": JOB_ID,
                    "state": "received",
                }
        else:
            assert await _closed(ws) == (1011, "job state not recorded; reconnect and report again")


# The HTTP protocol refuses the upgrade before a WebSocket exists; the application refuses one whose
# path it did not recognize (spelled with an escape) all the same.
@pytest.mark.parametrize("path", ["/agent/v1/ws", "/agent/v1/%77s"])
async def test_past_the_agents_connecting_at_once_one_is_told_with_503_when_to_come_back(
    stack: Stack, path: str
) -> None:
    stack.agents.limits = AgentLimits(max_connecting=1)
    async with _socket(stack) as first:  # connected, its hello not sent yet: connecting
        with pytest.raises(InvalidStatus) as refused:
            await connect(stack.ws_url.replace("/agent/v1/ws", path), additional_headers=HEADERS, subprotocols=AGENT_V1)
        answer = refused.value.response
        assert answer.status_code == 503
        error = json.loads(answer.body or b"")["error"]
        assert (error["code"], error["request_id"]) == ("service_unavailable", answer.headers["x-request-id"])
        assert answer.headers["x-content-type-options"] == "nosniff"
        # When to come back, in whole seconds (the agent waits for it rather than its backoff).
        assert int(answer.headers["retry-after"]) >= 1
        await first.send(_hello([]))
        assert json.loads(await first.recv())["type"] == "welcome"
    await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentDisconnected")))
    async with _socket(stack) as third:  # the first's place was given back when it was welcomed
        await third.send(_hello([]))
        assert json.loads(await third.recv())["type"] == "welcome"
