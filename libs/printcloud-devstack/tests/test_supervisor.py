"""The dev stack's supervisor restarts exited services, waiting longer after each exit."""

from __future__ import annotations

from dataclasses import dataclass

from printcloud.devstack.supervisor import MAX_DELAY_SECONDS, STABLE_AFTER_SECONDS, Supervisor


@dataclass
class Service:
    running: bool = True
    starts: int = 0

    def start(self) -> None:
        self.starts += 1
        self.running = True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _crash_and_wait_for_restart(supervisor: Supervisor, service: Service, clock: Clock) -> float:
    """Seconds from the crash to the restart, checked every 0.25 s (exact in binary, so no rounding)."""
    service.running = False
    crashed_at = clock.now
    starts = service.starts
    while service.starts == starts:
        supervisor.check()
        clock.now += 0.25
    return clock.now - 0.25 - crashed_at


def test_each_restart_waits_twice_as_long_up_to_the_cap() -> None:
    clock, service = Clock(), Service()
    said: list[str] = []
    supervisor = Supervisor({"jobs": service}, said.append, clock)
    supervisor.check()
    waits = [_crash_and_wait_for_restart(supervisor, service, clock) for _ in range(7)]
    assert waits == [1.0, 2.0, 4.0, 8.0, 16.0, MAX_DELAY_SECONDS, MAX_DELAY_SECONDS]
    assert said[:2] == ["service jobs exited; restarting it in 1s", "restarting service jobs (restart 1)"]


def test_a_service_up_for_a_minute_starts_over_at_one_second() -> None:
    clock, service = Clock(), Service()
    supervisor = Supervisor({"jobs": service}, lambda _: None, clock)
    supervisor.check()
    for _ in range(3):
        _crash_and_wait_for_restart(supervisor, service, clock)
    clock.now += STABLE_AFTER_SECONDS
    supervisor.check()
    assert _crash_and_wait_for_restart(supervisor, service, clock) == 1.0


def test_running_services_are_left_alone() -> None:
    services = {"jobs": Service(), "devices": Service()}
    supervisor = Supervisor(dict(services), lambda _: None, Clock())
    for _ in range(10):
        supervisor.check()
    assert [s.starts for s in services.values()] == [0, 0]
