"""What a process made while starting stays out of the garbage collector's full passes while it
runs (`gc.freeze`), and is handed back once it stops, so an in-process test leaves nothing frozen."""

from __future__ import annotations

import gc

from printcloud.core.process.lifecycle import run_until_stopped


async def test_start_up_objects_are_frozen_while_the_process_runs_and_given_back_after() -> None:
    frozen_while_running: list[int] = []

    async def look() -> None:
        frozen_while_running.append(gc.get_freeze_count())

    await run_until_stopped([look()], [])
    assert frozen_while_running[0] > 0
    assert gc.get_freeze_count() == 0
