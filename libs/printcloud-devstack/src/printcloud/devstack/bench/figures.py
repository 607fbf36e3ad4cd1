"""Each performance figure (docs/performance.md), measured against a running stack by the load generator."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import asyncpg
import httpx
import uvloop

from printcloud.contracts.enums import SUBSCRIBABLE
from printcloud.core.db.database import Database
from printcloud.core.db.url import connect
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat, utcnow
from printcloud.devstack.bench.agents import measure_agents
from printcloud.devstack.bench.cpu import LOAD_GENERATOR, CpuRow, CpuUsage, Part, measured, postgres_server
from printcloud.devstack.bench.floor import Floor
from printcloud.devstack.bench.loadgen import LoadResult, LoadSpec, request, run_load
from printcloud.devstack.bench.parts import grpc_calls, start_bare_api, start_bare_grpc, statements
from printcloud.devstack.bench.profile import sampled
from printcloud.devstack.bench.table import Row, cpu_within, within
from printcloud.devstack.bench.tenants import Tenant, wait_for
from printcloud.devstack.ports import free_ports
from printcloud.devstack.stack import Stack
from printcloud.webhooks.domain.public_event import PublicEvent
from printcloud.webhooks.persistence import public_events

CONCURRENCY = 16
PDF = base64.b64encode(b"%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n").decode()


def _job_body(tenant: Tenant) -> dict[str, str]:
    """The document every bench job prints, on the tenant's printer."""
    return {"printerId": tenant.printer_id, "title": "bench", "contentType": "pdf_base64", "content": PDF}


TERMINAL = ("done", "error", "cancelled", "expired")
# Enough for several seconds of sending at the target rate: the worker's pickup (it polls every
# 0.5 s for rows written behind its back, as these are) and this bench's own polling weigh little.
WEBHOOK_DELIVERIES = 10_000
WEBHOOK_EVENT = "printjob.done"

# The targets. A job's and a read's CPU are held to a multiple of their floor (`bench.floor`):
# one client's jobs share no batch of events or polls with others, so theirs is looser.
JOB_TIMES_FLOOR = 4.0
ONE_CLIENT_JOB_TIMES_FLOOR = 8.0
READ_TIMES_FLOOR = 1.5
ONE_CLIENT_P50_MS = 10.0
FIRST_ATTEMPT_P99_SECONDS = 1.0
RECONNECT_WITHIN_SECONDS = 90.0


def latency(result: LoadResult) -> str:
    return f"{result.per_second:,.0f}/s, p50 {result.percentile(50):.1f} ms, p99 {result.percentile(99):.1f} ms"


def _shares_back(by_share: dict[float, float]) -> str:
    return ", ".join(f"{share:.0%} back by {seconds:.0f}s" for share, seconds in by_share.items()) or "none back"


def _refused(result: LoadResult, expected: str) -> str:
    """Answers other than `expected`, which would make the figure meaningless."""
    others = {status: n for status, n in result.statuses.items() if status != expected}
    return f" (other answers: {others})" if others else ""


class Figures:
    def __init__(self, stack: Stack, tenants: list[Tenant], seconds: float, profile: Path | None = None) -> None:
        self.stack = stack
        self.profile = profile
        self.tenants = tenants
        self.seconds = seconds
        self.floor = Floor()
        self.job_ids: list[tuple[str, str]] = []  # (key, job id)
        self.cpu_rows: list[CpuRow] = []

    def _load(
        self,
        label: str,
        requests: list[str],
        concurrency: int = CONCURRENCY,
        *,
        seconds: float | None = None,
        total: int = 0,
        warmup_seconds: float = LoadSpec.warmup_seconds,
        rate: float = 0.0,
    ) -> LoadResult:
        spec = LoadSpec(
            "127.0.0.1",
            self.stack.config.api_port,
            requests,
            concurrency,
            seconds=self.seconds if seconds is None else seconds,
            total=total,
            warmup_seconds=warmup_seconds,
            rate=rate,
        )
        with sampled(self.profile, label, self._pids()):
            return run_load(spec)

    def _pids(self) -> dict[str, int]:
        return {name: s.process.pid for name, s in self.stack.services.items() if s.process is not None}

    def _parts(self) -> dict[str, Part]:
        """Every process of the stack whose CPU a request can cost."""
        parts: dict[str, Part] = {**self._pids()}
        if (postgres := postgres_server(self.stack.database_url)) is not None:
            parts["postgresql"] = postgres
        if self.stack.broker is not None:
            parts["broker"] = self.stack.broker.process.pid
        return parts

    def _record_cpu(self, label: str, requests: int, usage: CpuUsage, generator_seconds: float) -> float:
        """Adds the figure's row to the CPU table; returns its CPU milliseconds a request, every
        part and the load generator together."""
        if not requests:
            return 0.0
        spent = CpuUsage({**usage.seconds, LOAD_GENERATOR: generator_seconds})
        self.cpu_rows.append(CpuRow(label, requests, spent.per_request_ms(requests)))
        return sum(spent.per_request_ms(requests).values())

    def _each_tenant(self, method: str, path: str, body: bytes = b"") -> list[str]:
        return [request(method, path, key=t.key, body=body) for t in self.tenants]

    # The floor

    def bare_api(self) -> Row:
        (port,) = free_ports(1)
        server = start_bare_api(port)
        try:
            wait_for(lambda: _answers(f"http://127.0.0.1:{port}/bare"), 30, "the bare FastAPI server")
            with measured({"bare FastAPI": server.pid}) as usage:
                result = run_load(LoadSpec("127.0.0.1", port, [request("GET", "/bare")], CONCURRENCY, self.seconds))
            self.floor.api_ms = self._record_cpu("bare FastAPI GET", result.answered, usage, result.cpu_seconds)
            self.floor.api_per_second = result.per_second
        finally:
            server.terminate()
            server.wait()
        return Row(f"bare FastAPI GET, {CONCURRENCY} clients",
                   f"{latency(result)}; {self.floor.api_ms:.2f} ms CPU{_refused(result, '200')}")  # fmt: skip

    def bare_grpc(self) -> Row:
        (port,) = free_ports(1)
        server = start_bare_grpc(port)
        try:
            with measured({"bare gRPC server": server.pid}) as usage:
                calls = grpc_calls(port, CONCURRENCY, self.seconds)
            self.floor.grpc_ms = self._record_cpu("bare gRPC call", int(calls["calls"]), usage, calls["cpu_seconds"])
        finally:
            server.terminate()
            server.wait()
        return Row(f"bare gRPC unary call, {CONCURRENCY} callers",
                   f"{calls['per_second']:,.0f}/s; {self.floor.grpc_ms:.2f} ms CPU")  # fmt: skip

    def _bare_statements(self, what: str, label: str) -> tuple[Row, float]:
        """`label` (PostgreSQL run by a client of its own) and its CPU milliseconds each, the
        client's (counted as the load generator's) and PostgreSQL's."""
        ran = statements(self.stack.database_url, what, CONCURRENCY, self.seconds)
        usage = CpuUsage({"postgresql": ran["postgresql_cpu_seconds"]})
        spent_ms = self._record_cpu(label, int(ran["count"]), usage, ran["cpu_seconds"])
        row = Row(f"{label}, {CONCURRENCY} connections", f"{ran['per_second']:,.0f}/s; {spent_ms:.2f} ms CPU")
        return row, spent_ms

    def bare_transaction(self) -> Row:
        row, self.floor.transaction_ms = self._bare_statements("transaction", "bare 4-statement transaction")
        return row

    def bare_select(self) -> Row:
        row, self.floor.select_ms = self._bare_statements("select", "bare one-row SELECT")
        return row

    def floors(self) -> list[Row]:
        rows = [
            Row("floor of a job: FastAPI + gRPC + 2 transactions", f"{self.floor.job_ms:.2f} ms CPU"),
            Row("floor of a read: FastAPI + gRPC + SELECT", f"{self.floor.read_ms:.2f} ms CPU"),
        ]
        if self.floor.machine:
            rows.append(Row("this machine", self.floor.machine))
        return rows

    # The stack at rest

    def at_rest(self) -> Row:
        """What the stack spends with its tenants and no load: the pollers and timers every
        process runs, which an idle install pays whatever its traffic."""
        with sampled(self.profile, "at rest", self._pids()), measured(self._parts()) as usage:
            time.sleep(self.seconds)
        per_second = {part: spent * 1000 / self.seconds for part, spent in usage.seconds.items()}
        largest = sorted(per_second.items(), key=lambda item: -item[1])
        parts = ", ".join(f"{part} {ms:.1f}" for part, ms in largest)
        return Row("the stack at rest, CPU a second", f"{sum(per_second.values()):.1f} ms ({parts})")

    # The API

    def _read(self, label: str, requests: list[str], *, expected: str = "200", held: bool = False) -> list[Row]:
        """The read's latency and, if `held`, its CPU a request (every process, the load generator
        too, as the floor counts it) against the floor of a read."""
        with measured(self._parts()) as usage:
            result = self._load(label, requests)
        spent_ms = self._record_cpu(label, result.answered, usage, result.cpu_seconds)
        rows = [Row(label, latency(result) + _refused(result, expected))]
        if held:
            rows.append(cpu_within("  the same, CPU a request", spent_ms, self.floor.read_ms, "floor of a read",
                                   READ_TIMES_FLOOR))  # fmt: skip
        return rows

    def whoami(self) -> list[Row]:
        return self._read(f"GET /v1/whoami, {CONCURRENCY} clients", self._each_tenant("GET", "/v1/whoami"))

    def whoami_without_key(self) -> list[Row]:
        return self._read(f"GET /v1/whoami without a key (401), {CONCURRENCY} clients",
                          [request("GET", "/v1/whoami")], expected="401")  # fmt: skip

    def printers(self) -> list[Row]:
        return self._read(f"GET /v1/printers, {CONCURRENCY} clients", self._each_tenant("GET", "/v1/printers"),
                          held=True)  # fmt: skip

    def print_job(self) -> list[Row]:
        if not self.job_ids:
            self._remember_jobs()
        requests = [request("GET", f"/v1/printjobs/{job_id}", key=key) for key, job_id in self.job_ids]
        return self._read(f"GET /v1/printjobs/{{id}}, {CONCURRENCY} clients", requests, held=True)

    def _create_requests(self) -> list[str]:
        return [
            request("POST", "/v1/printjobs", key=t.key, body=json.dumps(_job_body(t)).encode())
            for t in self.tenants
        ]  # fmt: skip

    def create(self, concurrency: int) -> list[Row]:
        """Creates from `concurrency` clients; their CPU per job created, from the first request
        until every job is walked to its end, in the stack's processes (the load generator left out)."""
        label = f"create {concurrency}"
        with measured(self._parts()) as usage:
            result = self._load(label, self._create_requests(), concurrency)
            self.wait_until_jobs_settle()
        created = result.statuses.get("201", 0)
        self._record_cpu(f"{label}, until settled", created, usage, result.cpu_seconds)
        stack_ms = sum(usage.per_request_ms(created).values()) if created else float("nan")
        answered = latency(result) + _refused(result, "201")
        times = ONE_CLIENT_JOB_TIMES_FLOOR if concurrency == 1 else JOB_TIMES_FLOOR
        cpu = cpu_within("  the same, CPU a job walked to done", stack_ms, self.floor.job_ms, "floor of a job", times)
        if concurrency == 1:
            p50 = result.percentile(50)
            return [within("POST /v1/printjobs, one client at a time", answered, f"p50 ≤ {ONE_CLIENT_P50_MS:g} ms",
                           p50 <= ONE_CLIENT_P50_MS), cpu]  # fmt: skip
        return [Row(f"POST /v1/printjobs, {concurrency} clients", answered), cpu]

    def pipeline(self, jobs: int, rate: float = 0.0) -> list[Row]:
        """`jobs` jobs posted by 16 clients, as fast as they go or at `rate` a second, from the first
        request until every one is `done` and every webhook of their state changes (one endpoint per
        organization, on a local receiver, subscribed to every job event) has succeeded."""
        settled_before = self._jobs_settled()
        with _receiver() as receiver, self._pipeline_endpoints(receiver.port):
            began, since = time.perf_counter(), utcnow()
            with measured({**self._parts(), "webhook receiver": receiver.pid}) as usage:
                result = self._load(
                    "pipeline", self._create_requests(), total=jobs, warmup_seconds=0, seconds=600, rate=rate
                )
                posted = result.statuses.get("201", 0)
                wait_for(lambda: self._jobs_settled() >= settled_before + posted, 600, "every bench job settled")
                wait_for(lambda: self._webhooks_behind(since) <= 0 or None, 600, "every pipeline webhook delivered")
            elapsed = time.perf_counter() - began
            latency = asyncio.run(_first_attempt_latency(self.stack.database_url, self._organizations(), since))
        self._record_cpu("pipeline: POST → done", posted, usage, result.cpu_seconds)
        done = self._jobs_done()
        return [
            Row(f"pipeline: POST → done and webhooks delivered, {posted} jobs by {CONCURRENCY} clients"
                + (f" at {rate:,.0f}/s" if rate else ""),
                f"{posted / elapsed:,.0f} jobs/s ({done} done in all){_refused(result, '201')}"),
            within("  the same, state change → first webhook attempt",
                   _p50_p99(latency.whole)
                   + f" ({latency.count:,} deliveries, {receiver.arrivals['count']:,.0f} arrived)",
                   f"p99 ≤ {FIRST_ATTEMPT_P99_SECONDS:g} s",
                   latency.count > 0 and latency.whole[1] <= FIRST_ATTEMPT_P99_SECONDS),
            Row("    of it, state change → event in the feed", _p50_p99(latency.to_feed)),
            Row("    of it, event in the feed → first attempt", _p50_p99(latency.to_attempt)),
        ]  # fmt: skip

    @contextlib.contextmanager
    def _pipeline_endpoints(self, port: int) -> Iterator[None]:
        events = [event for event in SUBSCRIBABLE if event.startswith("printjob.")]
        created: list[tuple[str, str]] = []
        with httpx.Client(base_url=self.stack.api_url, timeout=30) as api:
            try:
                for tenant in self.tenants:
                    answer = api.post("/v1/webhooks", headers={"Authorization": f"Bearer {tenant.key}"},
                                      json={"url": f"http://127.0.0.1:{port}/pipeline", "events": events})  # fmt: skip
                    answer.raise_for_status()
                    created.append((tenant.key, answer.json()["id"]))
                yield
            finally:
                # Later figures send their own deliveries: these endpoints would take a share.
                for key, endpoint_id in created:
                    api.delete(f"/v1/webhooks/{endpoint_id}", headers={"Authorization": f"Bearer {key}"})

    def _webhooks_behind(self, since: datetime) -> int:
        """Job state changes since `since` not yet delivered: each is a `printjob.<state>` event,
        sent to the one endpoint of its organization."""
        query = """
            SELECT (SELECT count(*) FROM jobs.job_state_changes WHERE organization_id = ANY($1) AND created_at >= $2)
                 - (SELECT count(*) FROM webhooks.deliveries
                    WHERE organization_id = ANY($1) AND created_at >= $2 AND status = 'succeeded')
        """
        return asyncio.run(_fetchval(self.stack.database_url, query, self._organizations(), since))

    def webhook_deliveries(self) -> Row:
        """Deliveries committed at once, to one endpoint on a local receiver, until all succeeded."""
        tenant = self.tenants[0]
        with _receiver() as receiver:
            with httpx.Client(base_url=self.stack.api_url, headers={"Authorization": f"Bearer {tenant.key}"}) as api:
                hook = f"http://127.0.0.1:{receiver.port}/hook"
                api.post("/v1/webhooks", json={"url": hook, "events": [WEBHOOK_EVENT]})
            scope = Scope(uuid.UUID(tenant.organization_id), "test")
            parts = {**self._parts(), "webhook receiver": receiver.pid}
            with sampled(self.profile, "webhooks", self._pids()), measured(parts) as usage:
                committed = asyncio.run(_enqueue_deliveries(self.stack.database_url, scope, WEBHOOK_DELIVERIES))
                wait_for(lambda: self._succeeded_deliveries(scope) >= WEBHOOK_DELIVERIES, 600,
                         "every delivery succeeded")  # fmt: skip
            self._record_cpu("webhook deliveries", WEBHOOK_DELIVERIES, usage, 0.0)
            elapsed = time.time() - committed
        rate = WEBHOOK_DELIVERIES / elapsed
        arrivals = receiver.arrivals
        arriving = arrivals["count"] / max(arrivals["last"] - arrivals["first"], 1e-9)
        return Row(f"webhook deliveries from one process, {WEBHOOK_DELIVERIES:,} at once",
                   f"{rate:,.0f}/s committed → all succeeded ({arriving:,.0f}/s first to last arrival);"
                   f" {arrivals['count']:,} arrived")  # fmt: skip

    # The agent-gateway

    def idle_agents(self, count: int, printers: int = 0) -> list[Row]:
        """`count` agents, each reporting `printers` printers in its hello: held idle, then all
        dropped and reconnecting at once."""
        gateway = self.stack.services["agent-gateway"].process
        assert gateway is not None
        parts = self._parts()
        with sampled(self.profile, "agents", self._pids()):
            # On uvloop, as the services run: 10,000 simulated agents on one core otherwise spend
            # the first seconds of a storm in their own event loop, the gateway waiting for them.
            got = uvloop.run(measure_agents(self.stack.api_url, self.stack.agent_gateway_url,
                                             [t.key for t in self.tenants], count, printers, gateway.pid,
                                             parts, self._bench_agents_online))  # fmt: skip
        self._record_cpu(f"{got.agents:,} agents reconnecting at once{_with_printers(printers)}", got.reconnect.back,
                         got.reconnect_cpu, got.reconnect.client_cpu_seconds)  # fmt: skip
        idle = ", ".join(f"{name} {spent / got.idle_seconds:.0%}" for name, spent in got.idle.seconds.items()
                         if spent / got.idle_seconds >= 0.01)  # fmt: skip
        storm = got.reconnect
        return [
            Row(f"agent-gateway: {got.agents:,} idle agents on one process{_with_printers(printers)}",
                f"{got.rss_per_agent_bytes / 1024:,.1f} KiB each ({got.connected:,} held,"
                f" filled in {got.connect_seconds:.0f}s; enrolled {got.enrolled_per_second:,.0f}/s)"),
            Row(f"  the same, CPU while idle ({got.idle_seconds:.0f}s)",
                f"{idle or 'under 1% of a core in every process'} of a core"),
            within(f"agent-gateway: {got.agents:,} agents reconnecting at once{_with_printers(printers)}",
                   f"{storm.back:,} back in {storm.seconds:.1f}s ({storm.attempts:,} connection attempts;"
                   f" {_shares_back(storm.back_by_share)}); {storm.online:,} computers online then",
                   f"all back within {RECONNECT_WITHIN_SECONDS:g} s",
                   storm.back == got.agents and storm.seconds <= RECONNECT_WITHIN_SECONDS),
        ]  # fmt: skip

    # Helpers

    def _remember_jobs(self) -> None:
        """Up to 50 jobs of each tenant; one created for a tenant that has none (a run of the read
        figures without the create figures)."""
        with httpx.Client(base_url=self.stack.api_url, timeout=30) as client:
            for tenant in self.tenants:
                headers = {"Authorization": f"Bearer {tenant.key}"}
                listed = client.get("/v1/printjobs", params={"limit": 50}, headers=headers).json()["data"]
                if not listed:
                    created = client.post("/v1/printjobs", json=_job_body(tenant), headers=headers)
                    created.raise_for_status()
                    listed = [created.json()]
                self.job_ids += [(tenant.key, job["id"]) for job in listed]

    def _organizations(self) -> list[uuid.UUID]:
        return [uuid.UUID(t.organization_id) for t in self.tenants]

    def _count_jobs(self, states: tuple[str, ...]) -> int:
        query = "SELECT count(*) FROM jobs.print_jobs WHERE organization_id = ANY($1) AND state = ANY($2)"
        return asyncio.run(_fetchval(self.stack.database_url, query, self._organizations(), list(states)))

    def _jobs_settled(self) -> int:
        return self._count_jobs(TERMINAL)

    def _jobs_done(self) -> int:
        return self._count_jobs(("done",))

    async def _bench_agents_online(self) -> int:
        query = "SELECT count(*) FROM devices.computers WHERE hostname LIKE 'bench-agent-%' AND state = 'online'"
        return await _fetchval(self.stack.database_url, query)

    def _succeeded_deliveries(self, scope: Scope) -> int:
        query = "SELECT count(*) FROM webhooks.deliveries WHERE organization_id = $1 AND status = 'succeeded'"
        return asyncio.run(_fetchval(self.stack.database_url, query, scope.organization_id))

    def wait_until_jobs_settle(self) -> None:
        """Jobs still on their way would take the machine from the next figure."""
        organizations = [uuid.UUID(t.organization_id) for t in self.tenants]
        query = "SELECT count(*) FROM jobs.print_jobs WHERE organization_id = ANY($1) AND NOT state = ANY($2)"
        wait_for(lambda: asyncio.run(_fetchval(self.stack.database_url, query, organizations, list(TERMINAL))) == 0
                 or None, 900, "bench jobs settled")  # fmt: skip


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


async def _fetchrow(database_url: str, query: str, *args: object) -> asyncpg.Record:
    """The first row of `query`, which must answer one (a count or another aggregate)."""
    connection = await connect(database_url)
    try:
        row = await connection.fetchrow(query, *args)
    finally:
        await connection.close()
    assert row is not None, "the query answers no row"
    return row


async def _fetchval(database_url: str, query: str, *args: object) -> int:
    return int((await _fetchrow(database_url, query, *args))[0])


@dataclass(frozen=True)
class _Latency:
    count: int
    # Seconds, (p50, p99) each: the whole wait, then its two parts: up to the start of the event's
    # recording in webhooks' feed (jobs, the broker, webhooks' consumer), then to the first attempt
    # (the feed's transaction, then the delivery worker).
    whole: tuple[float, float]
    to_feed: tuple[float, float]
    to_attempt: tuple[float, float]


def _p50_p99(seconds: tuple[float, float]) -> str:
    return f"p50 {seconds[0] * 1000:,.0f} ms, p99 {seconds[1] * 1000:,.0f} ms"


def _with_printers(printers: int) -> str:
    return f", {printers} printers each" if printers else ""


async def _first_attempt_latency(database_url: str, organizations: list[uuid.UUID], since: datetime) -> _Latency:
    """From each event's state change (its `timestamp`) to the first attempt to deliver it, and the
    same in two parts, split at the time webhooks began recording the event in its feed (the time
    it gives the event's deliveries)."""
    query = """
        SELECT count(*),
               percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.sent_at - changed)),
               percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM d.created_at - changed)),
               percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.sent_at - d.created_at))
        FROM webhooks.deliveries d
        JOIN webhooks.delivery_attempts a ON a.delivery_id = d.id AND a.attempt = 1
        CROSS JOIN LATERAL (SELECT (d.payload->>'timestamp')::timestamptz AS changed) AS c
        WHERE d.organization_id = ANY($1) AND d.created_at >= $2
    """
    count, whole, to_feed, to_attempt = await _fetchrow(database_url, query, organizations, since)

    def pair(percentiles: list[float] | None) -> tuple[float, float]:
        return (float(percentiles[0]), float(percentiles[1])) if percentiles else (0.0, 0.0)

    return _Latency(count, pair(whole), pair(to_feed), pair(to_attempt))


@dataclass
class _Receiver:
    port: int
    pid: int
    arrivals: dict[str, float]  # count, first and last: filled in when it stops


@contextlib.contextmanager
def _receiver() -> Iterator[_Receiver]:
    """The bench's webhook receiver in a process of its own, on a free port."""
    (port,) = free_ports(1)
    process = subprocess.Popen([sys.executable, "-m", "printcloud.devstack.bench.receiver", str(port)],
                               stdout=subprocess.PIPE, text=True)  # fmt: skip
    receiver = _Receiver(port, process.pid, {})
    try:
        assert process.stdout is not None
        process.stdout.readline()  # "listening"
        yield receiver
    finally:
        process.terminate()
        receiver.arrivals.update(json.loads(process.communicate()[0].splitlines()[-1]))


async def _enqueue_deliveries(database_url: str, scope: Scope, count: int) -> float:
    """`count` events with their pending deliveries to the scope's endpoints, committed at once;
    returns when (time.time())."""
    db = Database.connect(database_url)
    try:
        events = [PublicEvent(uuid7(), scope, WEBHOOK_EVENT, isoformat(utcnow()), {"id": f"bench-{n}"})
                  for n in range(count)]  # fmt: skip
        async with db.driver_transaction() as tx:
            await public_events.record(tx, "bench", events, utcnow())
        return time.time()
    finally:
        await db.close()


def machine_load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} CPUs"
