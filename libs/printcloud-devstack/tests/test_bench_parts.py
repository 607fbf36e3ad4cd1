"""The bare gRPC part of the bench: a server and callers in processes of their own, calls counted."""

from __future__ import annotations

from printcloud.devstack.bench.parts import grpc_calls, start_bare_grpc
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
