"""The agent-gateway figures: many idle agents held by one process (memory each, CPU while idle)
and all of them reconnecting at once.

The agents are simulated, one WebSocket each, with the connection settings of the real agent
(`printcloud.agent.client`: the websockets library's defaults, so permessage-deflate offered and a
ping every 20 s; a 15 s handshake timeout) and its reconnect policy (`printcloud.agent.backoff`: a
first delay of up to a second, then capped exponential backoff with full jitter, or the wait a
refusal's `Retry-After` asked for): what a
connection and a storm cost the gateway depends on them. Each is enrolled through the public API
first, so the gateway authenticates every connection as it would a real one.
"""

from __future__ import annotations

import asyncio
import functools
import json
import resource
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

import httpx
import psutil
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException
from websockets.typing import Subprotocol

from printcloud.agent.backoff import Backoff, retry_after
from printcloud.devstack.bench.cpu import CpuUsage, Part, measured
from printcloud.protocol.constants import ENROLL_PATH, PROTOCOL_VERSION, SUBPROTOCOL, WELCOME, WS_PATH
from printcloud.protocol.messages import ComputerInfo, Hello, PrinterReport
from printcloud.protocol.virtual_computer import virtual_printers

ENROLL_CONCURRENCY = 16
# A first connection of the fleet comes in over minutes in real life; the bench lets this many
# handshakes run at once so that filling the gateway does not become a storm of its own.
CONNECT_CONCURRENCY = 50
OPEN_TIMEOUT_SECONDS = 15.0
FILL_WITHIN_SECONDS = 600.0
# Longer than the agent's and the gateway's ping intervals, so idle CPU includes both.
IDLE_SECONDS = 45.0
# Well past the target (`figures.RECONNECT_WITHIN_SECONDS`): a slow run measures how far past it it is.
STORM_WITHIN_SECONDS = 300.0


@dataclass(frozen=True)
class Agent:
    credential: str
    hostname: str
    printers: int  # reported in each hello, as a real agent reports its spooler's


@dataclass(frozen=True)
class Reconnect:
    seconds: float
    back: int
    attempts: int
    client_cpu_seconds: float  # the simulated agents' own, in the bench's process
    # Seconds from the outage until the first half, nine tenths and ninety-nine hundredths were
    # back: a storm's tail (agents asleep on a long backoff) shows as a gap between them.
    back_by_share: dict[float, float]
    # Computers online once the last was back: each agent back must be, whatever order its last
    # connection's goodbye and its new hello reached devices in.
    online: int


SHARES_BACK = (0.5, 0.9, 0.99)


def back_by_share(welcomed: Sequence[float], total: int) -> dict[float, float]:
    """The seconds by which each of `SHARES_BACK` of `total` agents were back, of those that were."""
    ordered = sorted(welcomed)
    return {share: ordered[int(share * total) - 1] for share in SHARES_BACK if 0 < int(share * total) <= len(ordered)}


def raise_open_files_limit(needed: int) -> int:
    """Lifts this process's soft limit on open files towards `needed` (the services it starts
    inherit it); returns the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        return wanted
    return soft


async def enroll(api_url: str, keys: Sequence[str], count: int, printers: int) -> list[Agent]:
    """`count` computers enrolled through `POST /v1/agent/enroll`, spread over the keys'
    organizations, each to report `printers` printers."""
    agents: list[Agent] = []
    numbers = iter(range(count))

    async def worker(client: httpx.AsyncClient) -> None:
        for n in numbers:
            hostname = f"bench-agent-{n}"
            answer = await client.post(
                ENROLL_PATH, json={"hostname": hostname}, headers={"Authorization": f"Bearer {keys[n % len(keys)]}"}
            )
            answer.raise_for_status()
            agents.append(Agent(answer.json()["credential"], hostname, printers))

    async with httpx.AsyncClient(base_url=api_url, timeout=60) as client:
        await asyncio.gather(*(worker(client) for _ in range(ENROLL_CONCURRENCY)))
    return agents


def _hello(agent: Agent) -> str:
    computer = ComputerInfo(hostname=agent.hostname, os="linux", agent_version="bench")
    hello = Hello(protocol_version=PROTOCOL_VERSION, computer=computer, printers=_printers(agent.printers))
    return json.dumps(hello.to_wire())


@functools.cache
def _printers(count: int) -> list[PrinterReport]:
    """`count` printers with the virtual computer's capabilities, under names of their own."""
    models = virtual_printers()
    return [models[n % len(models)].model_copy(update={"name": f"bench-printer-{n}"}) for n in range(count)]


async def connect_agent(gateway_url: str, agent: Agent) -> ClientConnection:
    """One agent's connection, once the gateway has welcomed it."""
    url = gateway_url.replace("http://", "ws://", 1) + WS_PATH
    websocket = await connect(
        url,
        additional_headers={"Authorization": f"Bearer {agent.credential}"},
        subprotocols=[Subprotocol(SUBPROTOCOL)],
        open_timeout=OPEN_TIMEOUT_SECONDS,
        # Straight to the gateway on loopback: finding a proxy in the environment is each real
        # agent's own cost on its own computer, here ten thousand times on the bench's.
        proxy=None,
    )
    try:
        await websocket.send(_hello(agent))
        while True:
            message = json.loads(await asyncio.wait_for(websocket.recv(), OPEN_TIMEOUT_SECONDS))
            if message.get("type") == WELCOME:
                return websocket
    except BaseException:
        await websocket.close()
        raise


class Fleet:
    """The simulated agents' connections, held open until `drop_all`."""

    def __init__(self, gateway_url: str, agents: Sequence[Agent]) -> None:
        self.gateway_url = gateway_url
        self.agents = list(agents)
        self.connections: dict[int, ClientConnection] = {}
        self.attempts = 0  # of the last `connect_all`
        self._began = 0.0
        self.welcomed: list[float] = []  # seconds into the last `connect_all`, one per agent back

    async def _connect_until_welcomed(self, index: int, deadline: float, backoff: Backoff | None) -> None:
        """Tries until welcomed or `deadline`; with `backoff`, waits before each try as the agent
        does after losing its connection, or for as long as a refusal asked."""
        asked: float | None = None
        while time.monotonic() < deadline:
            if backoff is not None:
                await asyncio.sleep(backoff.next_delay(asked))
            self.attempts += 1
            try:
                self.connections[index] = await connect_agent(self.gateway_url, self.agents[index])
                self.welcomed.append(time.monotonic() - self._began)
                return
            except InvalidStatus as refused:
                asked = retry_after(refused.response.status_code, refused.response.headers)
            except (OSError, TimeoutError, WebSocketException):
                asked = None
            backoff = backoff or Backoff()

    async def connect_all(self, concurrency: int | None, within_seconds: float) -> float:
        """Connects every agent not connected: `concurrency` handshakes at a time, or (None) all at
        once after the agent's own reconnect delay. Returns the seconds until the last was
        welcomed, or until it gave up."""
        self.attempts = 0
        self.welcomed = []
        began = self._began = time.monotonic()
        deadline = began + within_seconds
        waiting = [i for i in range(len(self.agents)) if i not in self.connections]
        limit = asyncio.Semaphore(concurrency or len(waiting) or 1)

        async def one(index: int) -> None:
            async with limit:
                await self._connect_until_welcomed(index, deadline, None if concurrency else Backoff())

        await asyncio.gather(*(one(i) for i in waiting))
        return time.monotonic() - began

    async def drop_all(self) -> None:
        """Every connection ends at once, as a network outage or a gateway restart ends them."""
        connections, self.connections = list(self.connections.values()), {}
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)


@dataclass(frozen=True)
class AgentFigures:
    agents: int
    enrolled_per_second: float
    connected: int
    connect_seconds: float
    rss_per_agent_bytes: float
    idle: CpuUsage
    idle_seconds: float
    reconnect: Reconnect
    reconnect_cpu: CpuUsage


def _rss(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss)


async def measure_agents(
    api_url: str,
    gateway_url: str,
    keys: Sequence[str],
    count: int,
    printers: int,
    gateway_pid: int,
    parts: Mapping[str, Part],
    online: Callable[[], Awaitable[int]],
) -> AgentFigures:
    began = time.monotonic()
    agents = await enroll(api_url, keys, count, printers)
    enrolled_per_second = count / (time.monotonic() - began)
    before = _rss(gateway_pid)
    fleet = Fleet(gateway_url, agents)
    try:
        connect_seconds = await fleet.connect_all(CONNECT_CONCURRENCY, FILL_WITHIN_SECONDS)
        connected = len(fleet.connections)
        # Idle: only pings and the gateway's heartbeats to devices go on.
        with measured(parts) as idle:
            await asyncio.sleep(IDLE_SECONDS)
        per_agent = (_rss(gateway_pid) - before) / max(connected, 1)
        await fleet.drop_all()
        client_began = time.process_time()
        with measured(parts) as reconnect_cpu:
            seconds = await fleet.connect_all(None, STORM_WITHIN_SECONDS)
        client_cpu_seconds = time.process_time() - client_began
        reconnect = Reconnect(seconds, len(fleet.connections), fleet.attempts, client_cpu_seconds,
                              back_by_share(fleet.welcomed, count), await online())  # fmt: skip
    finally:
        await fleet.drop_all()
    return AgentFigures(count, enrolled_per_second, connected, connect_seconds, per_agent, idle, IDLE_SECONDS,
                        reconnect, reconnect_cpu)  # fmt: skip
