from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from printcloud.agent.backends.base import ReportState
from printcloud.agent.backends.virtual import VirtualBackend
from printcloud.agent.backoff import Backoff
from printcloud.agent.client import AgentClient, AgentRejected
from printcloud.agent.ledger import JobLedger
from printcloud.protocol.constants import states_reaching
from printcloud.protocol.messages import Job
from printcloud.protocol.virtual_computer import VIRTUAL_COMPUTER

if TYPE_CHECKING:
    from agent.tests.conftest import FakeGateway

FAST = Backoff(base=0.01, cap=0.05)


class BlockingBackend(VirtualBackend):
    """Reports printing, then holds the job until released or cancelled."""

    def __init__(self) -> None:
        super().__init__(printing_after=0, done_after=0)
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.submitted: list[str] = []

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        self.submitted.append(job.job_id)
        await report("printing", None)
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise
        await report("done", None)


@contextlib.asynccontextmanager
async def running(client: AgentClient) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(client.run())
    try:
        await asyncio.wait_for(client.connected.wait(), 5)
        yield task
    finally:
        await client.stop()
        await asyncio.wait_for(task, 5)


async def test_hello_then_job_reaches_done_and_a_redelivery_is_not_printed_again(gateway: FakeGateway) -> None:
    backend = VirtualBackend(printing_after=0.01, done_after=0.01)
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST)
    async with running(client):
        hello = gateway.received[0]
        assert hello["protocolVersion"] == 1
        assert hello["computer"]["hostname"] == "virtual-computer"
        assert len(hello["printers"]) == 4
        job = gateway.job("job-1", b"%PDF-1.7 test")
        await gateway.send(job)
        await gateway.wait_for(lambda: "done" in gateway.states("job-1"))
        assert gateway.states("job-1") == ["received", "printing", "done"]

        await gateway.send(job)
        await gateway.wait_for(lambda: len(gateway.states("job-1")) == 4)
        assert gateway.states("job-1") == ["received", "printing", "done", "done"]


@pytest.mark.parametrize("extra", [{"serverVersion": "1.1.0-dev"}, {}])
async def test_the_agent_logs_the_release_of_the_gateway_it_reached(
    gateway: FakeGateway, extra: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    gateway.welcome_extra = extra
    client = AgentClient(gateway.url, gateway.credential, VirtualBackend(), VIRTUAL_COMPUTER, backoff=FAST)
    with caplog.at_level("INFO", logger="printcloud.agent.client"):
        async with running(client):
            assert client.computer_id == "c-1"
    connected = [r for r in caplog.records if r.getMessage() == "connected to agent-gateway"]
    assert [r.server_version for r in connected] == [extra.get("serverVersion", "unknown")]  # type: ignore[attr-defined]


async def test_a_corrupt_file_is_never_received(gateway: FakeGateway, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("printcloud.agent.client.DOWNLOAD_RETRY_SECONDS", 0)
    client = AgentClient(gateway.url, gateway.credential, VirtualBackend(), VIRTUAL_COMPUTER, backoff=FAST)
    async with running(client):
        job = gateway.job("job-bad", b"%PDF-real", fileSha256="0" * 64)
        await gateway.send(job)
        await gateway.wait_for(lambda: bool(gateway.states("job-bad")))
        assert gateway.states("job-bad") == ["error"]
        message = next(m["message"] for m in gateway.received if m.get("jobId") == "job-bad")
        assert "SHA-256" in message


class RecordingBackend(VirtualBackend):
    def __init__(self) -> None:
        super().__init__(printing_after=0, done_after=0)
        self.printed: dict[str, bytes] = {}

    async def submit(self, job: Job, data: bytes, report: ReportState) -> None:
        self.printed[job.job_id] = data
        await super().submit(job, data, report)


async def test_a_small_file_inside_the_job_message_is_printed_without_a_download(gateway: FakeGateway) -> None:
    backend = RecordingBackend()
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST)
    async with running(client):
        data = b"^XA^FO50,50^FDlabel^FS^XZ"
        await gateway.send(gateway.job("inline", data, content=base64.b64encode(data).decode()))
        await gateway.wait_for(lambda: "done" in gateway.states("inline"))
    assert backend.printed["inline"] == data
    assert gateway.downloads == []


async def test_content_that_does_not_match_the_job_is_downloaded_instead(gateway: FakeGateway) -> None:
    backend = RecordingBackend()
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST)
    async with running(client):
        data = b"%PDF-1.7 the stored file"
        tampered = base64.b64encode(b"%PDF-1.7 another file!!").decode()
        await gateway.send(gateway.job("mismatch", data, content=tampered))
        await gateway.wait_for(lambda: "done" in gateway.states("mismatch"))
    assert backend.printed["mismatch"] == data
    assert gateway.downloads == ["mismatch"]


async def test_cancel_stops_the_job_before_done(gateway: FakeGateway) -> None:
    backend = BlockingBackend()
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST)
    async with running(client):
        await gateway.send(gateway.job("job-c", b"%PDF-c"))
        await gateway.wait_for(lambda: "printing" in gateway.states("job-c"))
        await gateway.send({"type": "job.cancel", "jobId": "job-c"})
        await asyncio.wait_for(backend.cancelled.wait(), 5)
        backend.release.set()
        # A later redelivery of the cancelled job is neither printed nor answered.
        await gateway.send(gateway.job("job-c", b"%PDF-c"))
        await gateway.send(gateway.job("job-d", b"%PDF-d"))
        await gateway.wait_for(lambda: "done" in gateway.states("job-d"))
    assert gateway.states("job-c") == ["received", "printing"]
    assert backend.submitted == ["job-c", "job-d"]


async def test_after_a_reconnect_the_state_of_jobs_in_flight_is_reported_again(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    backend = BlockingBackend()
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, state_dir=tmp_path)
    async with running(client):
        await gateway.send(gateway.job("job-r", b"%PDF-r"))
        await gateway.wait_for(lambda: "printing" in gateway.states("job-r"))
        assert gateway.connection is not None
        await gateway.connection.close(1011, "going away")
        await gateway.wait_for(lambda: gateway.hellos == 2)
        # The whole way to the current state, so a service that missed `received` can still follow.
        await gateway.wait_for(lambda: gateway.states("job-r") == ["received", "printing", "received", "printing"])
        backend.release.set()
        await gateway.wait_for(lambda: "done" in gateway.states("job-r"))
    assert (tmp_path / "jobs.json").exists()


async def _reported_again(gateway: FakeGateway, job_id: str, connections: int) -> None:
    """Waits for the agent's connection number `connections` and for the job's report on it."""
    await gateway.wait_for(lambda: gateway.hellos == connections)
    await gateway.wait_for(lambda: gateway.states(job_id).count("done") == connections)


async def _printed(gateway: FakeGateway, job_id: str) -> None:
    await gateway.send(gateway.job(job_id, b"%PDF-" + job_id.encode()))
    await gateway.wait_for(lambda: "done" in gateway.states(job_id))


async def test_a_finished_jobs_report_is_repeated_until_the_gateway_acknowledges_it(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    """A gateway that could not record a report closes the connection without acknowledging it;
    the report made again on the next connection may meet the same fate, and is then made again on
    the one after, until an acknowledgement comes; after it, never again."""
    backend = VirtualBackend(printing_after=0, done_after=0)
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, state_dir=tmp_path)
    gateway.acknowledge = False
    async with running(client):
        await _printed(gateway, "job-f")
        for connections in (2, 3):
            assert gateway.connection is not None
            await gateway.connection.close(1011, "job state not recorded; reconnect and report again")
            await _reported_again(gateway, "job-f", connections)
        gateway.acknowledge = True
        assert gateway.connection is not None
        await gateway.connection.close(1011, "job state not recorded; reconnect and report again")
        await _reported_again(gateway, "job-f", 4)
        assert gateway.connection is not None
        await gateway.connection.close(1012, "restart")
        await gateway.wait_for(lambda: gateway.hellos == 5)
        # Re-reports go out before anything else on a connection, so once the next job is done
        # a re-report of the acknowledged one would have been seen.
        await _printed(gateway, "job-g")
    assert gateway.states("job-f").count("done") == 4


async def test_a_report_not_yet_acknowledged_survives_a_crash_of_the_agent(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    """`kill -9` right after a report went out: the report may still be in a socket buffer that dies
    with the process, so the ledger on disk must already hold it as due until acknowledged."""
    backend = VirtualBackend(printing_after=0, done_after=0)
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, state_dir=tmp_path)
    gateway.acknowledge = False
    async with running(client):
        await _printed(gateway, "job-k")
        on_disk_at_the_crash = JobLedger(tmp_path / "jobs.json").to_report_again()
        assert on_disk_at_the_crash["job-k"].state == "done"
        gateway.acknowledge = True
        assert gateway.connection is not None
        await gateway.connection.close(1011, "reconnect")
        await _reported_again(gateway, "job-k", 2)
        await _printed(gateway, "job-l")  # a later write carries the acknowledgement to disk
    assert "job-k" not in JobLedger(tmp_path / "jobs.json").to_report_again()


async def test_a_stopping_agent_puts_its_jobs_where_every_release_reads_them_before_it_waits(
    gateway: FakeGateway, tmp_path: Path
) -> None:
    """A supervisor kills a process whose stop outlasts its grace, and closing the connection can
    take the whole close timeout (here the gateway never reads the close). The snapshot, the one
    file an earlier release reads after a rollback, must hold the job in progress by then; a job
    delivered meanwhile is left for the next connection rather than started and abandoned."""
    backend = BlockingBackend()
    client = AgentClient(gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, state_dir=tmp_path)
    task = asyncio.create_task(client.run())
    await asyncio.wait_for(client.connected.wait(), 5)
    await gateway.send(gateway.job("job-s", b"%PDF-s"))
    await gateway.wait_for(lambda: "printing" in gateway.states("job-s"))
    snapshot = tmp_path / "jobs.json"
    assert "job-s" not in json.loads(snapshot.read_text()), "a change goes to the journal, not the snapshot"
    assert gateway.connection is not None
    gateway.connection.transport.pause_reading()
    stopping = asyncio.create_task(client.stop())
    async with asyncio.timeout(5):  # well inside the client's 10 s close timeout
        while "job-s" not in json.loads(snapshot.read_text()):
            await asyncio.sleep(0.01)
    await gateway.send(gateway.job("job-late", b"%PDF-late"))
    gateway.connection.transport.resume_reading()
    await asyncio.wait_for(stopping, 15)
    await asyncio.wait_for(task, 5)
    assert backend.submitted == ["job-s"]
    assert "job-late" not in json.loads(snapshot.read_text())
    assert gateway.states("job-late") == []


async def test_a_stop_while_the_gateway_has_not_yet_welcomed_the_agent_ends_its_connection(
    gateway: FakeGateway,
) -> None:
    """The welcome that arrives after the stop must not begin a session that nothing would end."""
    gateway.welcome_held = asyncio.Event()
    client = AgentClient(gateway.url, gateway.credential, VirtualBackend(), VIRTUAL_COMPUTER, backoff=FAST)
    task = asyncio.create_task(client.run())
    await gateway.wait_for(lambda: gateway.hellos == 1)
    stopping = asyncio.create_task(client.stop())
    gateway.welcome_held.set()
    await asyncio.wait_for(stopping, 5)
    await asyncio.wait_for(task, 5)
    assert not client.connected.is_set()


async def test_a_refused_credential_stops_the_client(gateway: FakeGateway) -> None:
    client = AgentClient(gateway.url, "wrong", VirtualBackend(), VIRTUAL_COMPUTER, backoff=FAST)
    with pytest.raises(AgentRejected) as refused:
        await asyncio.wait_for(client.run(), 5)
    assert refused.value.code == 4401


async def test_an_unreachable_gateway_is_retried_until_stopped() -> None:
    attempts: list[float] = []
    third_attempt = asyncio.Event()

    class CountingBackoff(Backoff):
        def next_delay(self, retry_after: float | None = None) -> float:
            attempts.append(super().next_delay(retry_after))
            if len(attempts) == 3:
                third_attempt.set()
            return attempts[-1]

    client = AgentClient(
        "http://127.0.0.1:9",
        "any-credential",
        VirtualBackend(),
        VIRTUAL_COMPUTER,
        backoff=CountingBackoff(base=0.001, cap=0.01),
    )
    task = asyncio.create_task(client.run())
    await asyncio.wait_for(third_attempt.wait(), 5)
    await client.stop()
    await asyncio.wait_for(task, 5)


async def test_a_503s_retry_after_is_waited_for_instead_of_the_backoff(gateway: FakeGateway) -> None:
    gateway.busy_refusals, gateway.retry_after = 2, "0"
    asked: list[float | None] = []

    class RecordingBackoff(Backoff):
        def next_delay(self, retry_after: float | None = None) -> float:
            asked.append(retry_after)
            return super().next_delay(retry_after)

    # A backoff far longer than the test: only the `Retry-After` of each 503 lets the agent back in.
    client = AgentClient(
        gateway.url, gateway.credential, VirtualBackend(), VIRTUAL_COMPUTER, backoff=RecordingBackoff(base=600, cap=600)
    )
    async with running(client):
        assert asked == [0.0, 0.0]
        assert gateway.hellos == 1


async def test_printer_changes_are_sent_as_a_printers_message(gateway: FakeGateway) -> None:
    backend = VirtualBackend()
    client = AgentClient(
        gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, rediscover_seconds=0.01
    )
    async with running(client):
        del backend._printers["virtual-photo"]  # the printer disappears from the spooler
        await gateway.wait_for(lambda: any(m["type"] == "printers" for m in gateway.received))
        [update] = [m for m in gateway.received if m["type"] == "printers"]
        assert [p["name"] for p in update["printers"]] == ["virtual-office", "virtual-label", "virtual-windows"]


def test_re_reports_lead_through_every_state_to_the_last() -> None:
    assert states_reaching("done") == ["received", "printing", "done"]
    assert states_reaching("error") == ["received", "error"]
    assert states_reaching("received") == ["received"]


async def test_a_printer_condition_the_backend_signals_is_reported_at_once(gateway: FakeGateway) -> None:
    """The poll is an hour away: only the backend's signal can bring the report in time."""
    backend = VirtualBackend(printing_after=0, done_after=0, reason_seconds=0.5)
    client = AgentClient(
        gateway.url, gateway.credential, backend, VIRTUAL_COMPUTER, backoff=FAST, rediscover_seconds=3600
    )
    async with running(client):
        await gateway.send(gateway.job("job-r", b"%PDF-1.7", title="Label [reason:media-jam]"))

        def reports() -> list[dict[str, object]]:
            return [
                p
                for m in gateway.received
                if m["type"] == "printers"
                for p in m["printers"]
                if p["name"] == "virtual-office"
            ]

        await gateway.wait_for(lambda: len(reports()) >= 2)
        jammed, cleared = reports()[:2]
        assert (jammed["state"], jammed["stateReasons"]) == ("offline", ["media-jam"])
        assert (cleared["state"], cleared["stateReasons"], cleared["stateDetail"]) == ("online", [], "")
        await gateway.wait_for(lambda: gateway.states("job-r")[-1:] == ["done"])
