"""Writes that arrive during a write go together in the next one; each submitter learns its own fate."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from printcloud.webhooks.workers.group_write import GroupWrite


class _Store:
    """Holds each write open until the test lets it end, so the test decides what arrives during it."""

    def __init__(self) -> None:
        self.writes: list[list[str]] = []
        self.stored: list[str] = []
        self.release = asyncio.Event()
        self.fail_with: Exception | None = None  # for the next write only

    async def write(self, items: Sequence[str]) -> None:
        self.writes.append(list(items))
        await self.release.wait()
        failure, self.fail_with = self.fail_with, None
        if failure is not None:
            raise failure
        self.stored += items


async def _until(condition: object) -> None:
    while not condition():  # type: ignore[operator]
        await asyncio.sleep(0)


async def test_items_arriving_during_a_write_go_together_in_the_next() -> None:
    store = _Store()
    group = GroupWrite(store.write, max_items=10)
    first = asyncio.create_task(group.submit("a"))
    await _until(lambda: store.writes)
    later = [asyncio.create_task(group.submit(item)) for item in ("b", "c", "d")]
    await asyncio.sleep(0)
    store.release.set()
    await asyncio.gather(first, *later)
    assert store.writes == [["a"], ["b", "c", "d"]]
    assert store.stored == ["a", "b", "c", "d"]


async def test_a_group_is_at_most_max_items() -> None:
    store = _Store()
    store.release.set()
    group = GroupWrite(store.write, max_items=2)
    await asyncio.gather(*(group.submit(item) for item in "abcde"))
    assert store.writes == [["a", "b"], ["c", "d"], ["e"]]


async def test_a_failed_write_fails_its_own_group_only() -> None:
    store = _Store()
    group = GroupWrite(store.write, max_items=10)
    store.fail_with = RuntimeError("the database went away")
    doomed = asyncio.create_task(group.submit("a"))
    await _until(lambda: store.writes)
    spared = asyncio.create_task(group.submit("b"))
    await asyncio.sleep(0)
    store.release.set()
    with pytest.raises(RuntimeError, match="went away"):
        await doomed
    await spared
    assert store.stored == ["b"]


async def test_a_submitter_that_stops_waiting_still_has_its_item_written() -> None:
    store = _Store()
    group = GroupWrite(store.write, max_items=10)
    impatient = asyncio.create_task(group.submit("a"))
    await _until(lambda: store.writes)
    impatient.cancel()
    with pytest.raises(asyncio.CancelledError):
        await impatient
    store.release.set()
    await group.submit("b")
    assert store.stored == ["a", "b"]


async def test_closing_cancels_the_write_and_whoever_waits() -> None:
    store = _Store()
    group = GroupWrite(store.write, max_items=10)
    waiting = asyncio.create_task(group.submit("a"))
    await _until(lambda: store.writes)
    await group.close()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert store.stored == []
