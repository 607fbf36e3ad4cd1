"""The bare parts of the bench: a server and callers, or a client of PostgreSQL, in processes of
their own, calls counted with the CPU they cost."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from printcloud.devstack.bench.parts import grpc_calls, start_bare_grpc, statements
from printcloud.devstack.infrastructure import (
    LOCAL_POSTGRES_URL,
    create_database,
    drop_database,
    unique_database_name,
)
from printcloud.devstack.ports import free_ports


def test_bare_grpc_calls_are_answered_and_counted() -> None:
    (port,) = free_ports(1)
    server = start_bare_grpc(port)
    try:
        # The callers wait for the server to listen: no sleep, no retry here.
        calls = grpc_calls(port, concurrency=2, seconds=0.5)
    finally:
        server.terminate()
        server.wait()
    assert calls["calls"] > 0
    assert 0 < calls["per_second"] <= calls["calls"] / 0.5, "the callers ran at least the half second"
    assert calls["cpu_seconds"] > 0


@pytest.fixture
def database_url() -> Iterator[str]:
    name = unique_database_name("printcloud_bench_test")
    url = asyncio.run(create_database(LOCAL_POSTGRES_URL, name))
    yield url
    asyncio.run(drop_database(LOCAL_POSTGRES_URL, name))


@pytest.mark.parametrize("what", ["transaction", "select"])
def test_bare_statements_are_counted_with_the_clients_cpu_and_postgresqls(database_url: str, what: str) -> None:
    ran = statements(database_url, what, concurrency=2, seconds=0.5)
    assert ran["count"] > 0
    assert 0 < ran["per_second"] <= ran["count"] / 0.5, "the connections ran at least the half second"
    assert ran["cpu_seconds"] > 0
    # Hundreds of statements at the least: their backends' CPU is past a clock tick of the kernel.
    assert ran["postgresql_cpu_seconds"] > 0
