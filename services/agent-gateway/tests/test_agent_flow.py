from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import httpx
import pytest
from prometheus_client import generate_latest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from printcloud.agent.backends.virtual import VirtualBackend
from printcloud.agent.backoff import Backoff
from printcloud.agent.client import AgentClient, AgentRejected
from printcloud.agent_gateway.domain.file_tokens import ComputerScope, mint_token
from printcloud.agent_gateway.workers.agents_seen import AgentsSeen
from printcloud.agent_gateway.workers.instance_heartbeat import InstanceHeartbeat
from printcloud.core import release
from printcloud.core.kafka.envelope import Message
from printcloud.protocol.messages import JobCancel
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER

if TYPE_CHECKING:
    from conftest import Stack

COMPUTER_ID = "0190a000-0000-7000-8000-000000000001"
CREDENTIAL = "agent-credential-1"
SECRET = "test-secret-of-32-characters-at-least"
INSTANCE = "gw-test"
JOB_ID = "0190a000-0000-7000-8000-0000000000a1"
THE_COMPUTER = ComputerScope(COMPUTER_ID, "o", "test")
AGENT_V1 = [Subprotocol("printcloud.agent.v1")]


def command(kind: str, **data: str) -> Message:
    return Message(type=kind, organization_id="o", mode="test", data={"computerId": COMPUTER_ID, **data})


@contextlib.asynccontextmanager
async def agent(stack: Stack) -> AsyncIterator[AgentClient]:
    backend = VirtualBackend(printing_after=0.01, done_after=0.01)
    client = AgentClient(stack.url, CREDENTIAL, backend, VIRTUAL_COMPUTER, backoff=Backoff(base=0.01, cap=0.05))
    task = asyncio.create_task(client.run())
    try:
        await asyncio.wait_for(client.connected.wait(), 5)
        yield client
    finally:
        await client.stop()
        await asyncio.wait_for(task, 5)


async def test_hello_reaches_agent_connected(stack: Stack) -> None:
    async with agent(stack) as client:
        assert client.computer_id == COMPUTER_ID
        (connected,) = stack.recorder.named("AgentConnected")
        assert connected.computer_id == COMPUTER_ID
        assert connected.gateway_instance == "gw-test"
        assert connected.computer.hostname == "virtual-computer"
        assert [p.name for p in connected.printers] == [
            "virtual-office",
            "virtual-label",
            "virtual-windows",
            "virtual-photo",
        ]
        assert json.loads(connected.printers[0].capabilities_json)["duplex"] is True
    await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentDisconnected")))
    assert stack.recorder.named("AgentDisconnected")[0].gateway_instance == "gw-test"


async def test_delivered_job_is_marked_sent_downloaded_and_printed(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-1.7 a small test document")
    async with agent(stack):
        await stack.commands(command("job.deliver", jobId=JOB_ID))
        await stack.recorder.wait_for(lambda: "done" in stack.jobs.states(JOB_ID))
    assert stack.jobs.states(JOB_ID) == ["received", "printing", "done"]
    names = [name for name, _ in stack.recorder.calls if name in ("Claimed", "ReportJobState")]
    assert names[0] == "Claimed"


async def test_option_warnings_reach_the_done_message(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-w", printer_name="virtual-windows", options='{"nup": 1, "color": true}')
    async with agent(stack):
        await stack.commands(command("job.deliver", jobId=JOB_ID))
        await stack.recorder.wait_for(lambda: "done" in stack.jobs.states(JOB_ID))
    done = stack.recorder.named("ReportJobState")[-1]
    assert "nup ignored" in done.message and "color ignored" in done.message


async def test_a_printers_reasons_reach_devices_as_the_agent_reports_them(stack: Stack) -> None:
    """A virtual job asking for `media-jam` holds its printer jammed for a moment: the agent reports
    it, and the gateway passes the reasons to devices with the rest of the printer."""
    stack.add_job(JOB_ID, b"%PDF-1.7 jammed", title="Label [reason:media-jam-error]")
    backend = VirtualBackend(printing_after=0.01, done_after=0.01, reason_seconds=0.3)
    client = AgentClient(stack.url, CREDENTIAL, backend, VIRTUAL_COMPUTER, backoff=Backoff(base=0.01, cap=0.05))
    task = asyncio.create_task(client.run())
    try:
        await asyncio.wait_for(client.connected.wait(), 5)
        await stack.commands(command("job.deliver", jobId=JOB_ID))
        await stack.recorder.wait_for(lambda: "done" in stack.jobs.states(JOB_ID))
        await stack.recorder.wait_for(lambda: len(stack.recorder.named("ReportPrinters")) >= 2)
    finally:
        await client.stop()
        await asyncio.wait_for(task, 5)
    reported = [
        {p.name: (p.state, list(p.state_reasons), p.state_detail) for p in request.printers}["virtual-office"]
        for request in stack.recorder.named("ReportPrinters")
    ]
    assert reported[:2] == [
        ("offline", ["media-jam"], "The printer reports a paper jam (simulated by a test job)"),
        ("online", [], ""),
    ]


async def test_a_job_no_longer_queued_or_sent_is_not_delivered(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-x")
    stack.jobs.jobs[JOB_ID].job.state = "cancelled"
    async with agent(stack):
        await stack.commands(command("job.deliver", jobId=JOB_ID))
    assert stack.recorder.named("Claimed") == []


async def test_file_route_refuses_missing_forged_foreign_and_expired_tokens(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-secret")
    stack.jobs.jobs[JOB_ID].job.state = "sent"  # with the agent: the state in which a file is served
    path = f"{stack.url}/agent/v1/jobs/{JOB_ID}/file"
    later = int(time.time()) + 60
    async with httpx.AsyncClient() as http:
        assert (await http.get(path)).status_code == 401
        assert (await http.get(path, params={"token": "garbage"})).status_code == 403
        forged = mint_token("wrong-secret", JOB_ID, THE_COMPUTER, later)
        assert (await http.get(path, params={"token": forged})).status_code == 403
        other_job = mint_token(SECRET, "0190a000-0000-7000-8000-0000000000b2", THE_COMPUTER, later)
        assert (await http.get(path, params={"token": other_job})).status_code == 403
        expired = mint_token(SECRET, JOB_ID, THE_COMPUTER, int(time.time()) - 1)
        assert (await http.get(path, params={"token": expired})).status_code == 403
        good = await http.get(path, params={"token": mint_token(SECRET, JOB_ID, THE_COMPUTER, later)})
        assert good.status_code == 200
        assert good.content == b"%PDF-secret"
        assert good.headers["content-length"] == str(len(b"%PDF-secret"))


@pytest.mark.parametrize(("computer_state", "served"), [("offline", True), ("disabled", False), (None, False)])
async def test_a_token_is_good_only_while_its_computer_exists_enabled(
    stack: Stack, computer_state: str | None, served: bool
) -> None:
    stack.add_job(JOB_ID, b"%PDF-secret")
    stack.jobs.jobs[JOB_ID].job.state = "sent"  # with the agent: the state in which a file is served
    if computer_state is None:
        del stack.devices.computers[COMPUTER_ID]
    else:
        stack.devices.computers[COMPUTER_ID].state = computer_state
    token = mint_token(SECRET, JOB_ID, THE_COMPUTER, int(time.time()) + 60)
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{stack.url}/agent/v1/jobs/{JOB_ID}/file", params={"token": token})
    if served:
        assert answer.status_code == 200
    else:
        assert answer.status_code == 403
        assert answer.json()["error"] == {
            "code": "forbidden",
            "message": "The download token is no longer valid: its computer was deleted or disabled.",
            "request_id": answer.headers["x-request-id"],
        }


@pytest.mark.parametrize("expiry", ["9" * 5000, "²²²", "-1", ""])
async def test_a_token_with_a_monstrous_expiry_is_refused_not_parsed(stack: Stack, expiry: str) -> None:
    token = f"{expiry}.{COMPUTER_ID}.o.test.{'0' * 64}"
    async with httpx.AsyncClient() as http:
        answer = await http.get(f"{stack.url}/agent/v1/jobs/{JOB_ID}/file", params={"token": token})
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "forbidden"


async def test_bad_credential_is_closed_with_4401(stack: Stack) -> None:
    client = AgentClient(stack.url, "not-a-credential", VirtualBackend(), VIRTUAL_COMPUTER)
    with pytest.raises(AgentRejected) as refused:
        await asyncio.wait_for(client.run(), 5)
    assert refused.value.code == 4401
    assert stack.recorder.named("AgentConnected") == []


async def test_disabled_computer_is_closed_with_4403(stack: Stack) -> None:
    stack.devices.computers[COMPUTER_ID].state = "disabled"
    headers = {"Authorization": f"Bearer {CREDENTIAL}"}
    async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as ws:
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4403


async def test_disconnect_command_closes_the_socket_with_4403(stack: Stack) -> None:
    headers = {"Authorization": f"Bearer {CREDENTIAL}"}
    async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as ws:
        await ws.send(
            json.dumps({"type": "hello", "protocolVersion": 1, "computer": VIRTUAL_COMPUTER.to_wire(), "printers": []})
        )
        welcome = json.loads(await ws.recv())
        assert (welcome["type"], welcome["serverVersion"]) == ("welcome", release.version())
        await stack.commands(command("computer.disconnect"))
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4403
    await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentDisconnected")))


async def test_a_newer_connection_replaces_the_older_with_4409(stack: Stack) -> None:
    headers = {"Authorization": f"Bearer {CREDENTIAL}"}
    hello = json.dumps({"type": "hello", "protocolVersion": 1, "computer": VIRTUAL_COMPUTER.to_wire(), "printers": []})
    async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as old:
        await old.send(hello)
        await old.recv()
        async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as new:
            await new.send(hello)
            assert json.loads(await new.recv())["type"] == "welcome"
            with pytest.raises(ConnectionClosed):
                await old.recv()
            assert old.close_code == 4409
            # The replaced socket must not mark the computer offline.
            assert stack.recorder.named("AgentDisconnected") == []
            await new.send(json.dumps({"type": "printers", "printers": [{"name": "p", "state": "online"}]}))
            await stack.recorder.wait_for(lambda: bool(stack.recorder.named("ReportPrinters")))


async def test_a_malformed_message_is_closed_with_4400(stack: Stack) -> None:
    headers = {"Authorization": f"Bearer {CREDENTIAL}"}
    async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as ws:
        await ws.send(json.dumps({"type": "hello", "protocolVersion": 2}))
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4400


async def test_queued_jobs_go_out_when_an_agent_connects(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-1.7 waiting for the agent")
    async with agent(stack):
        # No job.deliver command: the replica that takes the connection sends what is queued.
        await stack.recorder.wait_for(lambda: "done" in stack.jobs.states(JOB_ID))
    assert stack.recorder.named("ListPendingJobs")[0].computer_id == COMPUTER_ID
    assert [r.job_id for r in stack.recorder.named("Claimed")] == [JOB_ID]


async def test_a_replica_presumed_dead_drops_its_agents_so_they_reconnect(stack: Stack) -> None:
    heartbeat = InstanceHeartbeat(stack.agents, interval_seconds=0.05)
    await heartbeat.register()
    stack.devices.forget_gateway(INSTANCE)  # as devices' sweep does to a replica it presumed dead
    async with agent(stack) as client:
        runner = asyncio.create_task(heartbeat.run())
        try:
            # Devices answers `known: false` to the next heartbeat: the connection is closed
            # with 1012 and the agent comes back with a fresh hello.
            await stack.recorder.wait_for(lambda: len(stack.recorder.named("AgentConnected")) == 2)
            await asyncio.wait_for(client.connected.wait(), 5)
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
    assert all(r.gateway_instance == "gw-test" for r in stack.recorder.named("GatewayHeartbeat"))


async def test_one_call_a_beat_tells_devices_of_every_agent_held(stack: Stack) -> None:
    beats = asyncio.create_task(AgentsSeen(stack.agents, interval_seconds=0.05).run())
    try:
        async with agent(stack):
            await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentSeen")))
    finally:
        beats.cancel()
        await asyncio.gather(beats, return_exceptions=True)
    await stack.recorder.wait_for(lambda: bool(stack.recorder.named("AgentDisconnected")))
    assert {tuple(seen.computer_ids) for seen in stack.recorder.named("AgentSeen")} == {(COMPUTER_ID,)}
    beaten = len(stack.recorder.named("AgentSeen"))
    assert await stack.agents.agents_seen() == 0
    assert len(stack.recorder.named("AgentSeen")) == beaten, "no agent held: no call"


def _writers() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name() == f"agent-writer-{COMPUTER_ID}" and not t.done()]


async def test_an_idle_agent_holds_no_writer_task(stack: Stack) -> None:
    """Memory per idle agent (docs/performance.md): its writer runs only while something is queued for it."""
    async with agent(stack):
        connection = stack.agents.registry.get(COMPUTER_ID)
        assert connection is not None
        async with asyncio.timeout(5):  # the welcome's writer ends once it is sent
            while _writers():
                await asyncio.sleep(0.01)
        assert connection.send(JobCancel(job_id=JOB_ID))
        assert len(_writers()) == 1


async def test_a_sent_job_goes_out_again_only_on_a_resend_command(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-1.7 resend me")
    stack.jobs.jobs[JOB_ID].job.state = "sent"
    stack.jobs.jobs[JOB_ID].send_count = 1
    async with agent(stack):
        # A late creation command must not push a job another path already sent...
        await stack.commands(command("job.deliver", jobId=JOB_ID))
        assert stack.recorder.named("Claimed") == []
        # ...the dispatcher's resend does.
        resend = Message(
            type="job.deliver", organization_id="o", mode="test",
            data={"computerId": COMPUTER_ID, "jobId": JOB_ID, "resendOf": 1},
        )  # fmt: skip
        await stack.commands(resend)
        await stack.recorder.wait_for(lambda: "received" in stack.jobs.states(JOB_ID))
        # The same resend command delivered twice (Kafka delivers at least once) pushes nothing.
        await stack.commands(resend)
    assert [(r.job_id, r.resend_of) for r in stack.recorder.named("Claimed")] == [(JOB_ID, 1)]


async def test_the_public_port_has_no_metrics_and_answers_unknown_paths_in_the_envelope(stack: Stack) -> None:
    async with httpx.AsyncClient(base_url=stack.url) as http:
        metrics = await http.get("/metrics")
        unknown = await http.get("/agent/v1/nowhere")
        health = await http.get("/healthz")
    for response in (metrics, unknown):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert health.status_code == 200 and health.json()["version"] == release.version()
    exposed = generate_latest().decode()
    assert 'printcloud_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}' in exposed
    assert 'route="/healthz",status="200"' in exposed


async def test_a_websocket_anywhere_but_the_agent_path_is_refused(stack: Stack) -> None:
    """The agent socket is served before the HTTP router (memory per agent, docs/performance.md); every other
    WebSocket still goes through the HTTP stack, which has no WebSocket endpoint: a 404."""
    for path in ("/agent/v1/ws/", "/agent/v1/wsx", "/healthz"):
        with pytest.raises(InvalidStatus) as refused:
            await connect(stack.url.replace("http://", "ws://") + path, subprotocols=AGENT_V1)
        response = refused.value.response
        assert response.status_code == 404
        assert json.loads(response.body)["error"] == {
            "code": "not_found",
            "message": "No WebSocket endpoint at this path.",
            "request_id": response.headers["x-request-id"],
        }
    assert stack.recorder.named("AuthenticateAgent") == []


async def test_a_state_message_is_kept_to_2000_characters_and_an_absent_one_stays_unset(stack: Stack) -> None:
    stack.add_job(JOB_ID, b"%PDF-1.7 reported by hand")
    headers = {"Authorization": f"Bearer {CREDENTIAL}"}
    hello = {"type": "hello", "protocolVersion": 1, "computer": VIRTUAL_COMPUTER.to_wire(), "printers": []}
    async with connect(stack.ws_url, additional_headers=headers, subprotocols=AGENT_V1) as ws:
        await ws.send(json.dumps(hello))
        assert json.loads(await ws.recv())["type"] == "welcome"
        await ws.send(json.dumps({"type": "job.state", "jobId": JOB_ID, "state": "received"}))
        await ws.send(json.dumps({"type": "job.state", "jobId": JOB_ID, "state": "error", "message": "x" * 3000}))
        await stack.recorder.wait_for(lambda: len(stack.recorder.named("ReportJobState")) == 2)
    received, error = stack.recorder.named("ReportJobState")
    assert not received.HasField("message")
    assert error.message == "x" * 2000
