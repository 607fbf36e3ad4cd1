"""A background chore runs again after a failed run, and stops only when cancelled."""

from __future__ import annotations

import asyncio
import contextlib

from printcloud.core.periodic import run_periodically


async def test_periodic_work_goes_on_after_a_failed_run() -> None:
    runs = 0
    third_run = asyncio.Event()

    async def work() -> None:
        nonlocal runs
        runs += 1
        if runs == 1:
            raise RuntimeError("the first run fails")
        if runs == 3:
            third_run.set()

    task = asyncio.create_task(run_periodically(work, 0.01, "test chore"))
    await asyncio.wait_for(third_run.wait(), timeout=5)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert task.cancelled()
