"""An ASGI application behind a real uvicorn server on a free 127.0.0.1 port, speaking the public
ports' protocol (`printcloud.core.http.edge_http`) as the gateways' processes serve it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.types import ASGIApp

from printcloud.core.http import edge_http
from printcloud.core.telemetry.ops import bound_port, serve_app, stop_app


@contextlib.asynccontextmanager
async def served(app: ASGIApp, limits: edge_http.EdgeLimits = edge_http.DEFAULT_LIMITS) -> AsyncIterator[str]:
    """Serves `app` until the block ends; yields its base URL."""
    server, task = await serve_app(app, "127.0.0.1", 0, "test-server", **edge_http.server_options(limits))
    try:
        yield f"http://127.0.0.1:{bound_port(server)}"
    finally:
        await stop_app(server, task)
