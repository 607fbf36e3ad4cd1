"""A stack whose start fails says why, and the second stop on the way out (`make dev`'s) stops nothing
twice: it used to raise from the mail sink and hide the failure behind an AssertionError."""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from printcloud.devstack.stack import Stack, StackConfig


def test_a_failed_start_names_the_service_and_a_second_stop_is_quiet(tmp_path: Path) -> None:
    config = StackConfig.on_free_ports(tmp_path)
    with socket.socket() as taken:
        # Another process on devices' gRPC port: devices exits during start-up.
        taken.bind(("127.0.0.1", config.devices_grpc_port))
        taken.listen()
        stack = Stack(config, sink=lambda *_: None)
        # In a thread of its own: the stack's `asyncio.run` leaves the thread it ran in without an
        # event loop, and later test modules' synchronous fixtures take the main thread's.
        with ThreadPoolExecutor(1) as thread:
            with pytest.raises(RuntimeError, match="devices exited during start-up"):
                thread.submit(stack.start).result()
            thread.submit(stack.stop).result()
    assert (stack.broker, stack.smtp_sink, stack.postgres) == (None, None, None)
    assert all(not service.running for service in stack.services.values())
