"""A process without a database of its own: its parts run until one fails, `/readyz` answers
ready only once they have all started, and the cleanups run in reverse."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from printcloud.core.process.bare_process import BareProcess
from printcloud.core.settings import CommonSettings
from printcloud.devstack.ports import free_port


class PartFailed(Exception):
    pass


async def test_ready_while_its_parts_run_and_cleaned_up_in_reverse_when_one_fails() -> None:
    port = free_port()
    process = BareProcess(CommonSettings(service_name="bare-test", ops_port=port))
    seen: dict[str, int] = {}
    cleaned: list[str] = []

    async def readyz() -> int:
        async with httpx.AsyncClient() as client:
            return (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code

    async def part() -> None:
        seen["readyz"] = await readyz()
        raise PartFailed

    async def cleanup(name: str) -> None:
        cleaned.append(name)

    process.run(part())
    process.on_stop(lambda: cleanup("first"))
    process.on_stop(lambda: cleanup("second"))
    assert not await process.readiness(), "not ready before it runs"

    with pytest.raises(SystemExit) as stopped:
        await process.run_until_stopped()

    assert stopped.value.code == 1, "a part that fails takes the process down, for its supervisor to restart"
    assert seen["readyz"] == 200
    assert cleaned == ["second", "first"]


async def test_without_an_ops_port_the_parts_run_and_the_process_is_marked_ready() -> None:
    process = BareProcess(CommonSettings(service_name="bare-test", ops_port=0))
    ran = asyncio.Event()

    async def part() -> None:
        ran.set()
        raise PartFailed

    process.run(part())
    with pytest.raises(SystemExit):
        await process.run_until_stopped()
    assert ran.is_set()
    assert await process.readiness(), "the public port of a gateway answers from the same readiness"
