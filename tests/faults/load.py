"""A steady load of test-mode print jobs, sent as the spec's "Client behaviour" asks: every create
carries an Idempotency-Key, and 429, 5xx and network errors are retried with the same key after
growing, jittered waits (honouring Retry-After). Every key answered 201 is recorded with its job id.

It runs on its own event loop in a thread, so a synchronous test can inject faults meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import socket
import struct
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import httpx

from tests.e2e.jobs_api import pdf_body

RETRYABLE_4XX = {429, 409}  # 409: idempotency_in_progress, the same key still being processed
GIVE_UP_AFTER_SECONDS = 300.0
MAX_IN_FLIGHT = 300
REQUEST_TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class LoadTenant:
    org_id: str
    key: str
    read_key: str
    printer_ids: tuple[str, ...]


@dataclass
class CreateOutcome:
    key: str
    org_id: str
    first_sent: float
    job_id: str | None = None
    answered_at: float | None = None
    attempts: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # status code or error name -> times
    rejected: str | None = None  # a 4xx that must not be retried, with its body


def job_title(key: str) -> str:
    """The title names the key, so the jobs a key produced can be counted on the server."""
    return f"fault {key}"


def backoff(attempt: int, retry_after: str | None) -> float:
    if retry_after and retry_after.isdigit():
        return float(retry_after) + random.uniform(0, 0.5)
    return min(0.25 * 2**attempt, 8.0) * random.uniform(0.5, 1.5)


async def create_with_retries(
    client: httpx.AsyncClient, outcome: CreateOutcome, body: dict, give_up_at: float, first_try: bool = True
) -> None:
    """POST /v1/printjobs until 201, a final 4xx, or `give_up_at`, always with the outcome's key."""
    attempt = 0 if first_try else 1
    while time.monotonic() < give_up_at:
        outcome.attempts += 1
        retry_after = None
        try:
            response = await client.post("/v1/printjobs", json=body, headers={"Idempotency-Key": outcome.key})
        except httpx.HTTPError as exc:
            outcome.failures[type(exc).__name__] += 1
        else:
            if response.status_code == 201:
                outcome.job_id = response.json()["id"]
                outcome.answered_at = time.time()
                return
            outcome.failures[str(response.status_code)] += 1
            if response.status_code < 500 and response.status_code not in RETRYABLE_4XX:
                outcome.rejected = f"{response.status_code} {response.text[:300]}"
                return
            retry_after = response.headers.get("retry-after")
        await asyncio.sleep(backoff(attempt, retry_after))
        attempt += 1


class LoadGenerator:
    """`rate` creates a second spread over the tenants and their printers, until `stop()`."""

    def __init__(self, api_url: str, tenants: list[LoadTenant], rate: float, label: str) -> None:
        self.api_url = api_url
        self.tenants = tenants
        self.rate = rate
        self.label = label
        self.outcomes: list[CreateOutcome] = []
        self.throttled = 0  # creates not started because too many were still retrying
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), name=f"load-{label}", daemon=True)

    def new_key(self) -> str:
        return f"{self.label}-{uuid.uuid4().hex}"

    def start(self) -> LoadGenerator:
        self._thread.start()
        return self

    def stop(self, timeout: float = GIVE_UP_AFTER_SECONDS + 60) -> list[CreateOutcome]:
        """Stops starting creates and returns once every started one was answered or given up."""
        self._stop.set()
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the load generator did not finish its creates"
        return self.outcomes

    def _client(self, key: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            base_url=self.api_url,
            headers={"Authorization": f"Bearer {key}"},
            timeout=REQUEST_TIMEOUT_SECONDS,
            limits=httpx.Limits(max_connections=100),
        )

    async def _run(self) -> None:
        clients = {t.org_id: self._client(t.key) for t in self.tenants}
        targets = itertools.cycle([(t, p) for t in self.tenants for p in t.printer_ids])
        in_flight: set[asyncio.Task[None]] = set()
        next_at = time.monotonic()
        try:
            while not self._stop.is_set():
                next_at += 1.0 / self.rate
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                if len(in_flight) >= MAX_IN_FLIGHT:
                    self.throttled += 1
                    continue
                tenant, printer_id = next(targets)
                outcome = CreateOutcome(self.new_key(), tenant.org_id, time.time())
                self.outcomes.append(outcome)
                body = pdf_body(printer_id, title=job_title(outcome.key))
                task = asyncio.create_task(
                    create_with_retries(clients[tenant.org_id], outcome, body, time.monotonic() + GIVE_UP_AFTER_SECONDS)
                )
                in_flight.add(task)
                task.add_done_callback(in_flight.discard)
            if in_flight:
                await asyncio.gather(*in_flight)
        finally:
            for client in clients.values():
                await client.aclose()


# Where a disconnecting client hangs up during a create: part-way through the headers, part-way
# through the body, and then this many milliseconds after the whole request was sent, which spans
# the gateway's checks, the gRPC call to jobs, its commit and the answer.
DISCONNECT_AFTER_BODY_MS = (0, 1, 3, 10, 20, 40, 70, 100, 150, 250, 400, 700, 1200)


def disconnect_points() -> list[tuple[str, float]]:
    return [("in-headers", 0.0), ("in-body", 0.0), *(("after-body", ms / 1000) for ms in DISCONNECT_AFTER_BODY_MS)]


async def hang_up_during_create(api_url: str, api_key: str, key: str, body: bytes, point: str, delay: float) -> None:
    """Sends a create over a raw connection and closes it (a reset, as a killed client) at `point`."""
    url = httpx.URL(api_url)
    head = (
        f"POST /v1/printjobs HTTP/1.1\r\nHost: {url.host}:{url.port}\r\nAuthorization: Bearer {api_key}\r\n"
        f"Content-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    _reader, writer = await asyncio.open_connection(url.host, url.port)
    try:
        if point == "in-headers":
            writer.write(head[: len(head) // 2])
        elif point == "in-body":
            writer.write(head + body[: len(body) // 2])
        else:
            writer.write(head + body)
        await writer.drain()
        await asyncio.sleep(delay)
    finally:
        sock = writer.get_extra_info("socket")
        with contextlib.suppress(OSError):
            # SO_LINGER 0: the close sends a reset, as the connection of a killed client would.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.close()


def run_disconnecting_client(api_url: str, tenant: LoadTenant, label: str, rounds: int) -> list[CreateOutcome]:
    """For each point of `disconnect_points()`, `rounds` times: hang up, then retry as the spec's client."""

    async def run() -> list[CreateOutcome]:
        outcomes = []
        async with httpx.AsyncClient(base_url=api_url, headers={"Authorization": f"Bearer {tenant.key}"},
                                     timeout=REQUEST_TIMEOUT_SECONDS) as client:  # fmt: skip
            for n in range(rounds):
                for point, delay in disconnect_points():
                    key = f"{label}-{point}-{int(delay * 1000)}ms-{n}-{uuid.uuid4().hex[:8]}"
                    body = pdf_body(tenant.printer_ids[n % len(tenant.printer_ids)], title=job_title(key))
                    outcome = CreateOutcome(key, tenant.org_id, time.time(), attempts=1)
                    outcome.failures[f"hung up {point}"] += 1
                    outcomes.append(outcome)
                    raw = httpx.Request("POST", "/", json=body).content
                    await hang_up_during_create(api_url, tenant.key, key, raw, point, delay)
                    await create_with_retries(client, outcome, body, time.monotonic() + GIVE_UP_AFTER_SECONDS, False)
        return outcomes

    return asyncio.run(run())
