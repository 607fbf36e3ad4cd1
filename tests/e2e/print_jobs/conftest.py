"""A stack of its own for the print-job rules: it may fetch content from 127.0.0.1 only
(PRINTCLOUD_EGRESS_ALLOWLIST=127.0.0.1/32), so hostile URLs aimed at other loopback forms prove
the guard without any traffic leaving the machine. Limits that take a day or a week are shortened
through their settings."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest

from printcloud.devstack.stack import Stack
from tests.e2e.client import api, eventually
from tests.e2e.stacks import LogFile, running_stack
from tests.e2e.tenants import create_key, create_org
from tests.support.content_server import ContentServer, content_server

TEST_JOBS_PER_DAY = 40
FETCH_TIMEOUT_SECONDS = 3

_tenant_numbers = itertools.count(1)


@pytest.fixture(scope="package")
def jobs_stack_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("print-jobs-stack") / "services.log"


@pytest.fixture(scope="package")
def jobs_stack(jobs_stack_logs: Path) -> Iterator[Stack]:
    env = {
        "PRINTCLOUD_EGRESS_ALLOWLIST": "127.0.0.1/32",
        "PRINTCLOUD_TEST_JOBS_PER_DAY": str(TEST_JOBS_PER_DAY),
        "PRINTCLOUD_CONTENT_FETCH_TIMEOUT_SECONDS": str(FETCH_TIMEOUT_SECONDS),
        "PRINTCLOUD_HOUSEKEEPING_INTERVAL_SECONDS": "0.5",
    }
    with running_stack(jobs_stack_logs.parent, LogFile(jobs_stack_logs), env) as running:
        yield running


@dataclass
class Org:
    id: str
    test_key: str
    live_key: str
    read_key: str
    client: httpx.Client
    printers: dict[str, dict]


def new_org(stack: Stack) -> Org:
    """An organization of its own, so per-day counts and idempotency keys never mix between tests."""
    name = f"PrintJobs{next(_tenant_numbers)}"
    org_id = create_org(stack, name)
    client = api(stack.api_url, create_key(stack, org_id, "test", "read,print,admin"))

    def online() -> dict[str, dict] | None:
        printers = client.get("/v1/printers").json()["data"]
        if len(printers) == 4 and all(p["state"] == "online" for p in printers):
            return {p["name"]: p for p in printers}
        return None

    printers = eventually(online, timeout=60, what="four online virtual printers")
    test_key = client.headers["Authorization"].removeprefix("Bearer ")
    live_key = create_key(stack, org_id, "live", "read,print,admin")
    return Org(org_id, test_key, live_key, create_key(stack, org_id, "test", "read"), client, printers)


@pytest.fixture(scope="module")
def org(jobs_stack: Stack) -> Iterator[Org]:
    created = new_org(jobs_stack)
    yield created
    created.client.close()


@pytest.fixture(scope="package")
def files() -> Iterator[ContentServer]:
    with content_server() as server:
        yield server


async def _sql(database_url: str, statement: str, *args: object) -> str:
    connection = await asyncpg.connect(database_url)
    try:
        return await connection.execute(statement, *args)
    finally:
        await connection.close()


@pytest.fixture(scope="package")
def sql(jobs_stack: Stack) -> Callable[..., str]:
    """Arranges what the API cannot (yet): a printer switched off, a week passing for a file."""

    def run(statement: str, *args: object) -> str:
        return asyncio.run(_sql(jobs_stack.database_url, statement, *args))

    return run
