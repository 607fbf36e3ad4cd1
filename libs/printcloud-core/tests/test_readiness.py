"""`/readyz` waits for start-up, then for the gates start-up leaves running (a consumer's first
join of its group), each asked until it held once."""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path

from printcloud.core.kafka.broker_epoch import BrokerEpoch, ensure_topics
from printcloud.core.kafka.bus import Consumer
from printcloud.core.kafka.envelope import Message
from printcloud.core.telemetry.ops import Readiness
from printcloud.devstack.infrastructure import start_broker


async def test_ready_once_started_and_every_gate_held_once() -> None:
    gate = {"open": False}
    readiness = Readiness()
    readiness.require(lambda: gate["open"])
    assert not await readiness()
    readiness.mark_started()
    assert not await readiness(), "a gate still closed keeps the process out of its Service"
    gate["open"] = True
    assert await readiness()
    gate["open"] = False
    assert await readiness(), "a gate that held once is not asked again"


async def test_a_member_is_joined_once_its_group_gave_it_its_partitions(tmp_path: Path) -> None:
    broker = start_broker(log_path=tmp_path / "broker.log")
    topic = f"test-{secrets.token_hex(4)}"

    async def handle(_: Message) -> None:
        pass

    try:
        epoch = await BrokerEpoch.checked(broker.bootstrap, check_seconds=60)
        await ensure_topics(broker.bootstrap, [topic], partitions=2)
        group = f"g-{secrets.token_hex(4)}"
        members = [Consumer(broker.bootstrap, group, [topic], handle, epoch) for _ in range(3)]
        for member in members:
            await member.start()
        try:
            for member in members:
                await asyncio.wait_for(member.joined.wait(), timeout=60)
            assigned = sorted(len(m._consumer.assignment()) for m in members if m._consumer is not None)
            assert sum(assigned) == 2, "three members of two partitions: one of them joined with none"
        finally:
            for member in members:
                await member.stop()
            await epoch.close()
    finally:
        broker.stop()
