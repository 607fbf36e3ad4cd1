"""Every service process runs on uvloop, whether started by `run_command` or by its own `__main__`.

Each runs in a thread of its own: running a loop to its end unsets the thread's event loop, which
would leave later tests of the session that need one (a sync fixture making a gRPC channel) without.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest
import uvloop

from printcloud.core.process.lifecycle import run_in_process_loop
from printcloud.core.process.service_process import run_command
from printcloud.core.settings import CommonSettings

T = TypeVar("T")


def _in_a_thread(work: Callable[[], T]) -> T:
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(work).result()


async def _loop_type() -> type[asyncio.AbstractEventLoop]:
    return type(asyncio.get_running_loop())


def test_the_process_loop_is_uvloop() -> None:
    assert issubclass(_in_a_thread(lambda: run_in_process_loop(_loop_type())), uvloop.Loop)


def test_a_service_started_by_run_command_runs_on_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[asyncio.AbstractEventLoop]] = []

    async def main() -> None:
        seen.append(await _loop_type())

    async def migrate(_: str) -> None:
        raise AssertionError("no migration without `migrate`")

    monkeypatch.setattr(sys, "argv", ["service"])
    _in_a_thread(lambda: run_command(main, migrate, CommonSettings))
    assert len(seen) == 1
    assert issubclass(seen[0], uvloop.Loop)
