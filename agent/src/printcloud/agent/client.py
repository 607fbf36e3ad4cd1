"""The agent's connection to an agent-gateway: protocol v1 over one WebSocket, kept alive for as
long as the agent runs (see agent/PROTOCOL.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from pathlib import Path

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.typing import Subprotocol

from printcloud.agent.backends.base import Backend, SignalsPrinterChanges
from printcloud.agent.backoff import Backoff, retry_after
from printcloud.agent.download import DownloadError, checked_content, download_job_file
from printcloud.agent.ledger import ACCEPTED, CANCELLED, JobLedger
from printcloud.agent.printer_watch import PrinterWatch, printers_differ
from printcloud.protocol.constants import (
    CLOSE_BAD_CREDENTIAL,
    CLOSE_COMPUTER_DISABLED,
    CLOSE_REPLACED,
    DONE,
    ERROR,
    PRINTING,
    PROTOCOL_VERSION,
    RECEIVED,
    SUBPROTOCOL,
    states_reaching,
    websocket_url,
)
from printcloud.protocol.messages import (
    ComputerInfo,
    Hello,
    Job,
    JobCancel,
    JobState,
    JobStateRecorded,
    PrinterReport,
    Printers,
    Welcome,
)
from printcloud.protocol.parsing import ProtocolError, parse_gateway_message

log = logging.getLogger(__name__)

WELCOME_TIMEOUT_SECONDS = 15.0
# Waits of 1, 2, 4, 8 then 15 s: a minute in all, long enough for a backing service's restart.
DOWNLOAD_ATTEMPTS = 8
DOWNLOAD_RETRY_SECONDS = 1.0
DOWNLOAD_LONGEST_WAIT_SECONDS = 15.0
# How often the backend is asked again for its printers, so that printers added, removed, stopped,
# out of paper or back show up at the service without a reconnect (bounded by printer_watch).
REDISCOVER_SECONDS = 10.0
_BACKEND_STATES = frozenset({PRINTING, DONE, ERROR})


class AgentRejected(Exception):
    """The gateway refused this agent for good; reconnecting would not help."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"gateway closed the connection with {code}: {reason or 'no reason given'}")
        self.code = code


class AgentClient:
    def __init__(
        self,
        server_url: str,
        credential: str,
        backend: Backend,
        computer: ComputerInfo,
        *,
        state_dir: Path | None = None,
        backoff: Backoff | None = None,
        rediscover_seconds: float = REDISCOVER_SECONDS,
    ) -> None:
        """`server_url` is the agent-gateway's base URL (`agentGatewayUrl` of the enrolment)."""
        self._rediscover_seconds = rediscover_seconds
        self._gateway_url = server_url.rstrip("/")
        self._credential = credential
        self._backend = backend
        self._computer = computer
        self._backoff = backoff or Backoff()
        self._ledger = JobLedger(state_dir / "jobs.json" if state_dir is not None else None)
        self._tasks: dict[str, asyncio.Task[None]] = {}
        # The trace of each job in progress, sent back with its state reports (PROTOCOL.md).
        self._traceparents: dict[str, str] = {}
        # The connection once welcomed, which jobs' reports go out on; and the open one, welcomed
        # or not, which a stop closes.
        self._ws: ClientConnection | None = None
        self._open: ClientConnection | None = None
        self._http: httpx.AsyncClient | None = None
        self._stop = asyncio.Event()
        self._finished = asyncio.Event()
        self._running = False
        self.connected = asyncio.Event()
        self.computer_id: str | None = None

    async def run(self) -> None:
        """Stays connected until `stop()` or cancellation; raises `AgentRejected` when refused."""
        self._running = True
        self._stop.clear()
        self._finished.clear()
        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=10.0)) as http:
                self._http = http
                while not self._stop.is_set():
                    asked = await self._connect_once()
                    if self._stop.is_set():
                        break
                    delay = self._backoff.next_delay(asked)
                    log.info("reconnecting", extra={"delay_seconds": round(delay, 2)})
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._stop.wait(), delay)
        finally:
            tasks = list(self._tasks.values())
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # A stopped agent leaves one file that every release reads.
            self._ledger.fold()
            self._http = None
            self._running = False
            self._finished.set()

    async def stop(self) -> None:
        self._stop.set()
        # Before waiting for anything: closing the connection can take its whole close timeout,
        # and a supervisor whose grace runs out kills the process. Every job known is then already
        # in the one file that every release reads; an earlier release, rolled back to, reads
        # only that file and would otherwise forget jobs it left in progress.
        self._ledger.fold()
        if self._open is not None:
            await self._open.close()
        if self._running:
            await self._finished.wait()

    async def _connect_once(self) -> float | None:
        """One connection, for as long as it lasts; returns the seconds a busy gateway asked the
        agent to wait before the next attempt, if it did."""
        url = websocket_url(self._gateway_url)
        try:
            async with connect(
                url,
                additional_headers={"Authorization": f"Bearer {self._credential}"},
                subprotocols=[Subprotocol(SUBPROTOCOL)],
                open_timeout=15,
            ) as ws:
                self._open = ws
                try:
                    # A stop during the opening handshake had no connection to close.
                    if not self._stop.is_set():
                        await self._session(ws)
                except ConnectionClosed:
                    pass
                finally:
                    self._open = None
                    self._ws = None
                    self.connected.clear()
        except InvalidStatus as refused:
            asked = retry_after(refused.response.status_code, refused.response.headers)
            log.warning(
                "agent-gateway refused the connection",
                extra={"status": refused.response.status_code, "retry_after_seconds": asked},
            )
            return asked
        except (OSError, TimeoutError, WebSocketException) as exc:
            log.warning("agent-gateway connection failed", extra={"error": repr(exc)})
            return None
        self._check_close(ws.close_code, ws.close_reason or "")
        return None

    def _check_close(self, code: int | None, reason: str) -> None:
        if code in (CLOSE_BAD_CREDENTIAL, CLOSE_REPLACED):
            raise AgentRejected(code, reason)
        if code == CLOSE_COMPUTER_DISABLED:
            log.warning("computer disabled or deleted; will keep trying", extra={"reason": reason})
        elif not self._stop.is_set():
            log.warning("agent-gateway connection closed", extra={"code": code, "reason": reason})

    async def _session(self, ws: ClientConnection) -> None:
        printers = await self._backend.discover()
        await _send(ws, Hello(protocol_version=PROTOCOL_VERSION, computer=self._computer, printers=printers))
        welcome = await _receive_welcome(ws)
        if welcome is None:
            await ws.close(code=1002, reason="expected welcome")
            return
        self.computer_id = welcome.computer_id
        self._backoff.reset()
        self._ws = ws
        await self._report_again()
        self.connected.set()
        log.info(
            "connected to agent-gateway",
            extra={"computer_id": self.computer_id, "server_version": welcome.server_version or "unknown"},
        )
        watcher = asyncio.create_task(self._watch_printers(ws, printers), name="printer-watch")
        try:
            async for raw in ws:
                await self._dispatch(raw)
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher

    async def _watch_printers(self, ws: ClientConnection, reported: list[PrinterReport]) -> None:
        """Sends the complete list again whenever it differs from what the gateway last heard."""
        changed = self._backend.printers_changed() if isinstance(self._backend, SignalsPrinterChanges) else None
        watch = PrinterWatch(self._rediscover_seconds, changed)
        while True:
            await watch.next_check()
            try:
                current = await self._backend.discover()
            except Exception:  # a failing spooler query must not end the connection
                log.exception("printer discovery failed")
                continue
            if printers_differ(current, reported):
                try:
                    await _send(ws, Printers(printers=current))
                except ConnectionClosed:
                    return
                reported = current
                log.info("printers changed", extra={"count": len(current)})

    async def _report_again(self) -> None:
        """Unfinished jobs, and finished ones whose last report was not acknowledged, are reported
        again; each stays due until its acknowledgement arrives."""
        for job_id, entry in self._ledger.to_report_again().items():
            for state in states_reaching(entry.state):
                await self._send_state(job_id, state, entry.message if state == entry.state else None)

    async def _dispatch(self, raw: str | bytes) -> None:
        try:
            message = parse_gateway_message(raw)
        except ProtocolError as error:
            log.warning("ignoring a malformed message from the gateway", extra={"reason": str(error)})
            return
        if isinstance(message, Job):
            await self._on_job(message)
        elif isinstance(message, JobCancel):
            self._on_cancel(message.job_id)
        elif isinstance(message, JobStateRecorded):
            self._ledger.acknowledge(message.job_id, message.state)
        else:
            log.debug("ignoring message of unknown type", extra={"type": message.type})

    async def _on_job(self, job: Job) -> None:
        if self._stop.is_set():
            # Taken now, it would be abandoned in progress and end in error; unanswered, the service
            # delivers it again (PROTOCOL.md, rule 2), to this computer's next connection.
            log.info("stopping; job left for the next connection", extra={"job_id": job.job_id})
            return
        entry = self._ledger.get(job.job_id)
        if entry is not None:
            # A redelivery means the gateway missed a report: repeat it, never print twice.
            if entry.reported:
                await self._send_state(job.job_id, entry.state, entry.message)
            return
        self._ledger.record(job.job_id, ACCEPTED)
        if job.traceparent:
            self._traceparents[job.job_id] = job.traceparent
        task = asyncio.create_task(self._process(job), name=f"job-{job.job_id}")
        self._tasks[job.job_id] = task
        task.add_done_callback(lambda _: self._job_ended(job.job_id))

    def _job_ended(self, job_id: str) -> None:
        self._tasks.pop(job_id, None)
        self._traceparents.pop(job_id, None)

    def _on_cancel(self, job_id: str) -> None:
        task = self._tasks.pop(job_id, None)
        if task is not None:
            task.cancel()
        entry = self._ledger.get(job_id)
        if entry is None or not entry.finished:
            self._ledger.record(job_id, CANCELLED)
        log.info("job cancelled by the service", extra={"job_id": job_id})

    async def _process(self, job: Job) -> None:
        try:
            data = await self._download(job)
        except DownloadError as exc:
            await self._report(job.job_id, ERROR, f"Could not download the job's file: {exc}")
            return
        await self._report(job.job_id, RECEIVED, None)

        async def report(state: str, message: str | None) -> None:
            if state not in _BACKEND_STATES:
                raise ValueError(f"a backend cannot report {state!r}")
            await self._report(job.job_id, state, message)

        try:
            await self._backend.submit(job, data, report)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a backend failure fails the job, not the agent
            log.exception("backend failed", extra={"job_id": job.job_id})
            await self._report(job.job_id, ERROR, f"Printing failed: {exc}")
            return
        entry = self._ledger.get(job.job_id)
        if entry is not None and not entry.finished:
            await self._report(job.job_id, ERROR, "The printer backend stopped without reporting done or error")

    async def _download(self, job: Job) -> bytes:
        if job.content is not None:
            try:
                return checked_content(job.content, sha256=job.file_sha256, size=job.file_size)
            except DownloadError as exc:
                log.warning("job content refused; downloading", extra={"job_id": job.job_id, "error": str(exc)})
        if not job.download_path.startswith("/") or self._http is None:
            raise DownloadError("invalid download path")
        url = self._gateway_url + job.download_path
        error = ""
        for attempt in range(DOWNLOAD_ATTEMPTS):
            if attempt:
                await asyncio.sleep(min(DOWNLOAD_RETRY_SECONDS * 2 ** (attempt - 1), DOWNLOAD_LONGEST_WAIT_SECONDS))
            try:
                return await download_job_file(
                    self._http, url, sha256=job.file_sha256, size=job.file_size, traceparent=job.traceparent or ""
                )
            except (DownloadError, httpx.HTTPError) as exc:
                error = str(exc) or type(exc).__name__
                # The URL carries the download token: log the job, never the URL.
                log.warning("download failed", extra={"job_id": job.job_id, "attempt": attempt + 1, "error": error})
        raise DownloadError(error)

    async def _report(self, job_id: str, state: str, message: str | None) -> None:
        self._ledger.record(job_id, state, message)
        await self._send_state(job_id, state, message)

    async def _send_state(self, job_id: str, state: str, message: str | None) -> None:
        """Sends when connected; a report that cannot go out stays due in the ledger."""
        ws = self._ws
        if ws is None:
            return
        report = JobState(
            job_id=job_id, state=state, message=message or None, traceparent=self._traceparents.get(job_id)
        )
        with contextlib.suppress(ConnectionClosed):
            await _send(ws, report)


async def _receive_welcome(ws: ClientConnection) -> Welcome | None:
    try:
        message = parse_gateway_message(await asyncio.wait_for(ws.recv(), WELCOME_TIMEOUT_SECONDS))
    except ProtocolError:
        return None
    return message if isinstance(message, Welcome) else None


async def _send(ws: ClientConnection, message: Hello | Printers | JobState) -> None:
    await ws.send(json.dumps(message.to_wire()))
