"""`BrokerEpoch.confirm` against a real broker: consumers asking together share a read, a read
already on its way never answers a caller that asked after it began, and the consumer kept open
between reads still sees a log that was lost and begun again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from printcloud.core.kafka.broker_epoch import BrokerEpoch
from printcloud.devstack.infrastructure import start_broker


class _CountedReads:
    """Wraps the epoch's held reader: how many reads began, and a gate that holds each one."""

    def __init__(self, epoch: BrokerEpoch) -> None:
        self.read = epoch._held.read
        self.began = 0
        self.gate = asyncio.Event()
        self.gate.set()
        epoch._held.read = self._read  # type: ignore[method-assign]

    async def _read(self) -> str | None:
        self.began += 1
        await self.gate.wait()
        return await self.read()

    async def held(self, epoch: BrokerEpoch, callers: int) -> list[asyncio.Task[str]]:
        """`callers` confirmations, started together, once the read answering them began and is
        held at the gate."""
        self.gate.clear()
        confirming = [asyncio.create_task(epoch.confirm()) for _ in range(callers)]
        while self.began < 1:
            await asyncio.sleep(0)
        return confirming


async def test_callers_asking_together_share_one_read(epoch: BrokerEpoch) -> None:
    reads = _CountedReads(epoch)
    lives = await asyncio.gather(*(epoch.confirm() for _ in range(20)))
    assert set(lives) == {epoch.current}
    assert reads.began == 1, "twenty consumers asking at once: one read answers them all"


async def test_a_read_on_its_way_does_not_answer_a_caller_who_asked_after_it_began(epoch: BrokerEpoch) -> None:
    reads = _CountedReads(epoch)
    (first,) = await reads.held(epoch, callers=1)
    later = asyncio.create_task(epoch.confirm())
    await asyncio.sleep(0.05)
    assert not later.done()
    reads.gate.set()
    assert await first == await later == epoch.current
    assert reads.began == 2, "the later caller waited for a read of its own"


async def test_a_cancelled_caller_leaves_the_read_to_the_others(epoch: BrokerEpoch) -> None:
    reads = _CountedReads(epoch)
    leaving, staying = await reads.held(epoch, callers=2)
    leaving.cancel()
    reads.gate.set()
    assert await staying == epoch.current
    assert leaving.cancelled()


async def test_the_held_reader_sees_a_log_begun_again(tmp_path: Path) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=3600)
    try:
        first_life = epoch.current
        assert await epoch.confirm() == first_life
        broker.process.kill()  # the embedded broker keeps its log in memory: it is gone
        broker.process.wait()
        broker = start_broker(broker.port, tmp_path / "broker.log")
        new_life = await asyncio.wait_for(epoch.confirm(), 60)
        assert new_life != first_life
        assert epoch.current == new_life
        assert await epoch.confirm() == new_life, "the next read, on a consumer opened again, agrees"
    finally:
        await epoch.close()
        broker.stop()
