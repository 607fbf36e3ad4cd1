"""The operations endpoint every process serves: Prometheus `/metrics`, `/healthz` and `/readyz`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

ReadinessCheck = Callable[[], Awaitable[bool]]


def ops_app(service: str, ready: ReadinessCheck | None = None) -> Starlette:
    async def metrics(_: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "service": service})

    async def readyz(_: Request) -> Response:
        ok = True if ready is None else await ready()
        return JSONResponse({"status": "ready" if ok else "not_ready", "service": service}, status_code=200 if ok else 503)

    return Starlette(routes=[Route("/metrics", metrics), Route("/healthz", healthz), Route("/readyz", readyz)])


def ops_routes(service: str, ready: ReadinessCheck | None = None) -> list[Route]:
    """The same endpoints as routes, for processes that already serve HTTP (gateways)."""
    return list(ops_app(service, ready).routes)


async def serve_ops(service: str, host: str, port: int, ready: ReadinessCheck | None = None) -> asyncio.Task[None]:
    """Starts the ops server in the running loop and returns its task."""
    config = uvicorn.Config(ops_app(service, ready), host=host, port=port, log_config=None, access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve(), name=f"{service}-ops")
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    return task
