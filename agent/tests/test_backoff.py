import random

from printcloud.agent.backoff import Backoff


def test_delays_stay_within_the_capped_exponential_ceiling() -> None:
    backoff = Backoff(base=0.5, cap=8.0, rng=random.Random(7))
    ceilings = []
    for _ in range(200):
        ceiling = backoff.ceiling()
        delay = backoff.next_delay()
        assert 0 <= delay <= ceiling
        ceilings.append(ceiling)
    assert ceilings[:6] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert max(ceilings) == 8.0


def test_full_jitter_spreads_delays_over_the_whole_range() -> None:
    delays = []
    for seed in range(200):
        backoff = Backoff(base=1.0, cap=10.0, rng=random.Random(seed))
        for _ in range(5):
            backoff.next_delay()
        delays.append(backoff.next_delay())  # ceiling 10
    assert min(delays) < 2.0 and max(delays) > 8.0


def test_reset_starts_again_from_the_base() -> None:
    backoff = Backoff(base=1.0, cap=60.0)
    for _ in range(10):
        backoff.next_delay()
    backoff.reset()
    assert backoff.ceiling() == 1.0
