"""A real gRPC server on a free 127.0.0.1 port for a test's servicer, and a channel to it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc

from printcloud.core import rpc


@contextlib.asynccontextmanager
async def serving(
    add_to_server: Callable[[Any, grpc.aio.Server], None], servicer: object
) -> AsyncIterator[grpc.aio.Channel]:
    """Serves `servicer`, registered by its generated `add_…Servicer_to_server`, until the block ends."""
    server = rpc.create_server()
    add_to_server(servicer, server)
    port = await rpc.start_server(server, "127.0.0.1:0")
    channel = rpc.channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        await channel.close()
        await server.stop(None)
