"""The bare parts a request is made of, measured on the same machine in the same run: a FastAPI
endpoint served as the gateway serves its own, a gRPC unary call between processes as the
services make theirs (their server and channel, interceptors included, an empty message), and a
four-statement PostgreSQL transaction. Each runs in a process of its own
(`python -m printcloud.devstack.bench.parts api PORT`, `... grpc PORT`,
`... grpc-calls PORT CONCURRENCY SECONDS` or `... pg DATABASE_URL CONCURRENCY SECONDS`)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import grpc
import uvloop
from fastapi import FastAPI

from printcloud.core import rpc
from printcloud.core.db.url import DatabaseUrl
from printcloud.core.http import edge_http
from printcloud.core.telemetry.ops import serve_app

SCHEMA = "bench_bare"
SETUP = f"""
CREATE SCHEMA IF NOT EXISTS {SCHEMA};
CREATE TABLE IF NOT EXISTS {SCHEMA}.rows (id bigserial PRIMARY KEY, owner int NOT NULL, body text NOT NULL);
CREATE TABLE IF NOT EXISTS {SCHEMA}.counts (owner int PRIMARY KEY, n bigint NOT NULL);
INSERT INTO {SCHEMA}.counts SELECT g, 0 FROM generate_series(0, 63) g ON CONFLICT DO NOTHING;
"""


def bare_app() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/bare")
    async def bare() -> dict[str, str]:
        return {"object": "bare"}

    return app


async def _serve_api(port: int) -> None:
    _, task = await serve_app(
        bare_app(), "127.0.0.1", port, "bare-api", **edge_http.server_options(edge_http.DEFAULT_LIMITS)
    )
    await task


# A method of no service: bytes in and out, so that the figure is the call alone.
_BARE_METHOD = "/printcloud.bench.Bare/Echo"


async def _echo(request: bytes, context: rpc.ServicerContext) -> bytes:
    return request


async def _serve_grpc(port: int) -> None:
    server = rpc.create_server()
    handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(_echo)
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("printcloud.bench.Bare", {"Echo": handler})])
    await rpc.start_server(server, f"127.0.0.1:{port}")
    await server.wait_for_termination()


async def _grpc_calls(port: int, concurrency: int, seconds: float) -> dict[str, float]:
    """Calls per second of `concurrency` callers on one channel, and the CPU this process spent."""
    channel = rpc.channel(f"127.0.0.1:{port}")
    echo: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(_BARE_METHOD)
    await echo(b"", timeout=30, wait_for_ready=True)  # the server up and connected before the clock starts
    done = 0
    deadline = time.perf_counter() + seconds

    async def caller() -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await rpc.call(echo, b"")
            done += 1

    began, cpu_began = time.perf_counter(), time.process_time()
    await asyncio.gather(*(caller() for _ in range(concurrency)))
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    await channel.close()
    return {"calls": done, "per_second": done / elapsed, "cpu_seconds": cpu}


async def _transactions(database_url: str, concurrency: int, seconds: float) -> float:
    """Transactions per second of `concurrency` connections, each a read, two inserts and an update,
    as a job's creation is, on tables of its own."""
    target = DatabaseUrl.parse(database_url)
    setup = await target.connect()
    await setup.execute(SETUP)
    await setup.close()
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker(owner: int) -> None:
        nonlocal done
        connection = await target.connect()
        try:
            while time.perf_counter() < deadline:
                async with connection.transaction():
                    await connection.fetchval(f"SELECT n FROM {SCHEMA}.counts WHERE owner = $1", owner)
                    await connection.execute(f"INSERT INTO {SCHEMA}.rows (owner, body) VALUES ($1, 'a')", owner)
                    await connection.execute(f"INSERT INTO {SCHEMA}.rows (owner, body) VALUES ($1, 'b')", owner)
                    await connection.execute(f"UPDATE {SCHEMA}.counts SET n = n + 1 WHERE owner = $1", owner)
                done += 1
        finally:
            await connection.close()

    began = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    elapsed = time.perf_counter() - began
    cleanup = await target.connect()
    await cleanup.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
    await cleanup.close()
    return done / elapsed


def start_bare_api(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "printcloud.devstack.bench.parts", "api", str(port)])


def start_bare_grpc(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "printcloud.devstack.bench.parts", "grpc", str(port)])


def _measured_by_part(*arguments: object) -> Any:
    """What a part measuring in a process of its own printed, as JSON."""
    command = [sys.executable, "-m", "printcloud.devstack.bench.parts", *map(str, arguments)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def grpc_calls(port: int, concurrency: int, seconds: float) -> dict[str, float]:
    calls: dict[str, float] = _measured_by_part("grpc-calls", port, concurrency, seconds)
    return calls


def transactions_per_second(database_url: str, concurrency: int, seconds: float) -> float:
    return float(_measured_by_part("pg", database_url, concurrency, seconds))


def main() -> None:
    what, *arguments = sys.argv[1:]
    if what == "api":
        uvloop.run(_serve_api(int(arguments[0])))
    elif what == "grpc":
        uvloop.run(_serve_grpc(int(arguments[0])))
    elif what == "grpc-calls":
        port, concurrency, seconds = arguments
        print(json.dumps(uvloop.run(_grpc_calls(int(port), int(concurrency), float(seconds)))))
    else:
        database_url, concurrency, seconds = arguments
        print(json.dumps(uvloop.run(_transactions(database_url, int(concurrency), float(seconds)))))


if __name__ == "__main__":
    main()
