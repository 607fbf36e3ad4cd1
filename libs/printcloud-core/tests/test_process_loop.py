"""Every service process runs on uvloop, whether started by `run_command` or by its own `__main__`."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from printcloud.core.service import run_in_process_loop
from printcloud.core.service_process import run_command
from printcloud.core.settings import CommonSettings


async def _loop_type() -> type[asyncio.AbstractEventLoop]:
    return type(asyncio.get_running_loop())


def test_the_process_loop_is_uvloop() -> None:
    assert issubclass(run_in_process_loop(_loop_type()), uvloop.Loop)


def test_a_service_started_by_run_command_runs_on_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[asyncio.AbstractEventLoop]] = []

    async def main() -> None:
        seen.append(await _loop_type())

    async def migrate(_: str) -> None:
        raise AssertionError("no migration without `migrate`")

    monkeypatch.setattr(sys, "argv", ["service"])
    run_command(main, migrate, CommonSettings)
    assert len(seen) == 1
    assert issubclass(seen[0], uvloop.Loop)
