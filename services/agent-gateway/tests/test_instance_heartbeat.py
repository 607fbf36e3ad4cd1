"""The replica's first heartbeat: retried soon while devices starts, then once an interval."""

from __future__ import annotations

import asyncio

import pytest

from printcloud.agent_gateway.workers.instance_heartbeat import InstanceHeartbeat
from printcloud.contracts.errors import ApiError


class _DevicesStarting:
    """Agents whose devices refuses the first `failures` heartbeats, as one still starting does."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    async def instance_heartbeat(self) -> bool:
        self.calls += 1
        if self.calls <= self.failures:
            raise ApiError("service_unavailable", "devices is starting")
        return True


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds each `asyncio.sleep` was asked for, none of them slept."""
    asked: list[float] = []

    async def recorded_sleep(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", recorded_sleep)
    return asked


async def test_the_first_heartbeat_is_retried_soon_then_less_often_up_to_the_interval(waits: list[float]) -> None:
    devices = _DevicesStarting(failures=8)
    await InstanceHeartbeat(devices, interval_seconds=10.0).register()  # type: ignore[arg-type]
    assert devices.calls == 9
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 10.0, 10.0]


async def test_a_heartbeat_that_answers_at_once_waits_for_nothing(waits: list[float]) -> None:
    devices = _DevicesStarting(failures=0)
    await InstanceHeartbeat(devices, interval_seconds=0.1).register()  # type: ignore[arg-type]
    assert (devices.calls, waits) == (1, [])
