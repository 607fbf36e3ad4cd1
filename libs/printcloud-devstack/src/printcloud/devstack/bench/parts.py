"""The bare parts a request is made of, measured on the same machine in the same run: a FastAPI
endpoint served as the gateway serves its own, a gRPC unary call between processes as the
services make theirs (their server and channel, interceptors included, an empty message), a
four-statement PostgreSQL transaction and a one-row SELECT. Each runs in a process of its own
(`python -m printcloud.devstack.bench.parts api PORT`, `... grpc PORT`,
`... grpc-calls PORT CONCURRENCY SECONDS` or `... pg DATABASE_URL transaction|select CONCURRENCY SECONDS`)"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any

import asyncpg
import grpc
import uvloop
from fastapi import FastAPI

from printcloud.core import rpc
from printcloud.core.db.url import DatabaseUrl
from printcloud.core.http import edge_http
from printcloud.core.telemetry.ops import serve_app
from printcloud.devstack.bench.cpu import measured, postgres_server

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


async def _transaction(connection: asyncpg.Connection, owner: int) -> None:
    """A read, two inserts and an update, as a job's creation is, on tables of its own."""
    async with connection.transaction():
        await connection.fetchval(f"SELECT n FROM {SCHEMA}.counts WHERE owner = $1", owner)
        await connection.execute(f"INSERT INTO {SCHEMA}.rows (owner, body) VALUES ($1, 'a')", owner)
        await connection.execute(f"INSERT INTO {SCHEMA}.rows (owner, body) VALUES ($1, 'b')", owner)
        await connection.execute(f"UPDATE {SCHEMA}.counts SET n = n + 1 WHERE owner = $1", owner)


async def _select(connection: asyncpg.Connection, owner: int) -> None:
    """One row by its primary key, as a read asks for a printer or a job."""
    await connection.fetchval(f"SELECT n FROM {SCHEMA}.counts WHERE owner = $1", owner)


STATEMENTS = {"transaction": _transaction, "select": _select}


async def _statements(database_url: str, what: str, concurrency: int, seconds: float) -> dict[str, float]:
    """`what` (a key of STATEMENTS) run over and over on `concurrency` connections: how many ran,
    how many a second, and the CPU this process and the PostgreSQL server spent meanwhile."""
    work = STATEMENTS[what]
    target = DatabaseUrl.parse(database_url)
    server = postgres_server(database_url)
    if server is None:
        raise RuntimeError(f"no process of this machine listens on {database_url}'s port")
    connections = [await target.connect() for _ in range(concurrency)]
    await connections[0].execute(SETUP)
    done = 0

    async def worker(owner: int) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            await work(connections[owner], owner)
            done += 1

    # Connecting is left out, as a service's pool connects once.
    with measured({"postgresql": server}) as usage:
        began, cpu_began = time.perf_counter(), time.process_time()
        deadline = began + seconds
        await asyncio.gather(*(worker(n) for n in range(concurrency)))
        elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu_began
    await connections[0].execute(f"DROP SCHEMA {SCHEMA} CASCADE")
    for connection in connections:
        await connection.close()
    return {"count": done, "per_second": done / elapsed, "cpu_seconds": cpu,
            "postgresql_cpu_seconds": usage.seconds["postgresql"]}  # fmt: skip


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


def statements(database_url: str, what: str, concurrency: int, seconds: float) -> dict[str, float]:
    """`_statements` in a process of its own: its figures are the client's and PostgreSQL's alone."""
    ran: dict[str, float] = _measured_by_part("pg", database_url, what, concurrency, seconds)
    return ran


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
        database_url, what, concurrency, seconds = arguments
        print(json.dumps(uvloop.run(_statements(database_url, what, int(concurrency), float(seconds)))))


if __name__ == "__main__":
    main()
