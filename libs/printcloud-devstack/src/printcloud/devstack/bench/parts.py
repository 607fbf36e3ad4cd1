"""The bare parts a request is made of, measured on the same machine in the same run: a FastAPI
endpoint served as the gateway serves its own, and a four-statement PostgreSQL transaction. Each
runs in a process of its own (`python -m printcloud.devstack.bench.parts api PORT` or
`... pg DATABASE_URL CONCURRENCY SECONDS`)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import asyncpg
import uvloop
from fastapi import FastAPI

from printcloud.core import edge_http
from printcloud.core.db import asyncpg_dsn
from printcloud.core.ops import serve_app

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


async def _transactions(database_url: str, concurrency: int, seconds: float) -> float:
    """Transactions per second of `concurrency` connections, each a read, two inserts and an update,
    as a job's creation is, on tables of its own."""
    dsn = asyncpg_dsn(database_url)
    setup = await asyncpg.connect(dsn)
    await setup.execute(SETUP)
    await setup.close()
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker(owner: int) -> None:
        nonlocal done
        connection = await asyncpg.connect(dsn)
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
    cleanup = await asyncpg.connect(dsn)
    await cleanup.execute(f"DROP SCHEMA {SCHEMA} CASCADE")
    await cleanup.close()
    return done / elapsed


def start_bare_api(port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "printcloud.devstack.bench.parts", "api", str(port)])


def transactions_per_second(database_url: str, concurrency: int, seconds: float) -> float:
    out = subprocess.run(
        [sys.executable, "-m", "printcloud.devstack.bench.parts", "pg", database_url, str(concurrency), str(seconds)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout))


def main() -> None:
    what, *arguments = sys.argv[1:]
    if what == "api":
        uvloop.run(_serve_api(int(arguments[0])))
    else:
        database_url, concurrency, seconds = arguments
        print(json.dumps(uvloop.run(_transactions(database_url, int(concurrency), float(seconds)))))


if __name__ == "__main__":
    main()
