import random

from printcloud.agent_gateway.domain.return_pacing import ReturnPacing


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _pacing(clock: Clock, longest: int = 60) -> ReturnPacing:
    return ReturnPacing(clock, random.Random(7), longest_wait_seconds=longest)


def _full_second(pacing: ReturnPacing, clock: Clock, admitted: int, refused: int) -> list[int]:
    """A second in which the replica admitted `admitted` agents and refused `refused`; the waits told."""
    for _ in range(admitted):
        pacing.admitted()
    waits = [pacing.refused() for _ in range(refused)]
    clock.now += 1
    return waits


def test_an_agent_refused_with_nobody_else_waiting_is_told_one_second() -> None:
    clock = Clock()
    pacing = _pacing(clock)
    pacing.admitted()
    assert pacing.refused() == 1


def test_the_waits_spread_the_waiting_agents_over_what_the_replica_admits() -> None:
    clock = Clock()
    pacing = _pacing(clock)
    _full_second(pacing, clock, admitted=10, refused=1)  # the replica admits 10 a second when full
    for _ in range(10):
        pacing.admitted()
    waits = [pacing.refused() for _ in range(200)]
    # 200 waiting, coming back evenly at twice the 10 a second it admits: within 20 s.
    assert pacing.horizon_seconds() == 20
    assert min(waits) >= 1 and max(waits) <= 20
    # Each was told when it comes back among those refused before it, so the later waits are longer.
    assert sum(waits[:50]) < sum(waits[-50:])


def test_agents_whose_time_came_no_longer_count_as_waiting() -> None:
    clock = Clock()
    pacing = _pacing(clock)
    _full_second(pacing, clock, admitted=10, refused=1)
    waits = _full_second(pacing, clock, admitted=10, refused=200)
    clock.now += max(waits)
    assert pacing.waiting() == 0
    assert pacing.refused() == 1


def test_a_fast_replica_tells_shorter_waits_than_a_slow_one() -> None:
    slow_clock, fast_clock = Clock(), Clock()
    slow, fast = _pacing(slow_clock), _pacing(fast_clock)
    for _ in range(5):
        _full_second(slow, slow_clock, admitted=10, refused=100)
        _full_second(fast, fast_clock, admitted=50, refused=100)
    assert fast.horizon_seconds() < slow.horizon_seconds() / 3


def test_no_agent_is_told_to_wait_longer_than_the_longest_wait() -> None:
    clock = Clock()
    pacing = _pacing(clock, longest=30)
    _full_second(pacing, clock, admitted=1, refused=1)
    waits = _full_second(pacing, clock, admitted=1, refused=10_000)
    assert max(waits) <= 30
    assert pacing.horizon_seconds() == 30


def test_after_a_quiet_minute_nobody_is_waiting_any_more() -> None:
    clock = Clock()
    pacing = _pacing(clock)
    _full_second(pacing, clock, admitted=10, refused=1)
    _full_second(pacing, clock, admitted=10, refused=500)
    clock.now += 3600
    assert pacing.refused() == 1
