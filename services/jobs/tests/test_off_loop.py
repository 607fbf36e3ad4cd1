"""Work on large inputs leaves the event loop free; small inputs are not worth a thread."""

from __future__ import annotations

import asyncio
import threading

from printcloud.jobs.use_cases.off_loop import OFF_LOOP_MIN_BYTES, cpu_bound


async def test_work_on_a_large_input_lets_the_loop_turn_meanwhile() -> None:
    loop_turned = threading.Event()

    async def another_request() -> None:
        await asyncio.sleep(0)
        loop_turned.set()

    task = asyncio.create_task(another_request())
    # On the loop thread this wait could only time out: nothing else would run until it returned.
    assert await cpu_bound(OFF_LOOP_MIN_BYTES, loop_turned.wait, 10.0) is True
    await task


async def test_work_on_a_small_input_stays_on_the_loop() -> None:
    assert await cpu_bound(OFF_LOOP_MIN_BYTES - 1, threading.get_ident) == threading.get_ident()
