"""The operations endpoint every process serves: Prometheus `/metrics`, `/healthz` and `/readyz`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from printcloud.core import release

ReadinessCheck = Callable[[], Awaitable[bool]]


class Readiness:
    """`/readyz` answers ready only once start-up finished (migrations applied, servers listening)
    and, from then on, while the optional dependency check passes.

    The ops server starts first so that liveness answers during a slow start; readiness is what
    supervisors and the dev stack wait for before sending work.
    """

    def __init__(self, check: ReadinessCheck | None = None) -> None:
        self._check = check
        self._started = False
        self._gates: list[Callable[[], bool]] = []

    def mark_started(self) -> None:
        self._started = True

    def require(self, gate: Callable[[], bool]) -> None:
        """A condition of start-up that runs on after `mark_started` (a Kafka consumer's first join
        of its group); once it holds, it is not asked again."""
        self._gates.append(gate)

    async def __call__(self) -> bool:
        if not self._started:
            return False
        self._gates = [gate for gate in self._gates if not gate()]
        if self._gates:
            return False
        return True if self._check is None else await self._check()


def health_routes(service: str, ready: ReadinessCheck | None = None) -> list[Route]:
    """`/healthz` and `/readyz`, also served by the gateways on their public ports (load balancers
    probe there). `/metrics` is only on the ops port: traffic figures are not for the public.
    `/healthz` names the release, so a rolling upgrade can be followed pod by pod."""

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "service": service, "version": release.version()})

    async def readyz(_: Request) -> Response:
        ok = True if ready is None else await ready()
        return JSONResponse(
            {"status": "ready" if ok else "not_ready", "service": service}, status_code=200 if ok else 503
        )

    return [Route("/healthz", healthz), Route("/readyz", readyz)]


def ops_app(service: str, ready: ReadinessCheck | None = None) -> Starlette:
    async def metrics(_: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return Starlette(routes=[Route("/metrics", metrics), *health_routes(service, ready)])


class EmbeddedServer(uvicorn.Server):
    """A uvicorn server that runs inside the service's own loop and leaves signals to it.

    uvicorn would otherwise install its own SIGINT/SIGTERM handlers and re-raise the signal after
    its shutdown, racing the service's orderly stop in `printcloud.core.process.lifecycle`.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


async def serve_app(
    app: ASGIApp, host: str, port: int, name: str, **uvicorn_options: Any
) -> tuple[EmbeddedServer, asyncio.Task[None]]:
    """Starts serving `app` in the running loop; returns once it listens (or failed to).

    Access logs stay off: request lines can carry tokens (agents' file downloads).
    """
    config = uvicorn.Config(
        app, host=host, port=port, log_config=None, access_log=False, lifespan="off", **uvicorn_options
    )
    server = EmbeddedServer(config)
    task = asyncio.create_task(server.serve(), name=name)
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if task.done():
        task.result()  # surfaces the bind error
        raise RuntimeError(f"{name} stopped while starting")
    return server, task


def bound_port(server: uvicorn.Server) -> int:
    """The port actually bound, for servers started on port 0."""
    return int(server.servers[0].sockets[0].getsockname()[1])


async def stop_app(server: uvicorn.Server, task: asyncio.Task[None]) -> None:
    """Graceful stop: open connections finish before the task ends."""
    server.should_exit = True
    await task


async def serve_ops(service: str, host: str, port: int, ready: ReadinessCheck | None = None) -> asyncio.Task[None]:
    """Starts the ops server in the running loop and returns its task."""
    _, task = await serve_app(ops_app(service, ready), host, port, f"{service}-ops")
    return task
