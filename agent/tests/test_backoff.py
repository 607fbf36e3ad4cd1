import random

from printcloud.agent.backoff import MAX_RETRY_AFTER_SECONDS, Backoff, retry_after


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


def test_a_retry_after_is_spread_over_the_second_after_it_and_does_not_grow_the_backoff() -> None:
    backoff = Backoff(base=1.0, cap=60.0, rng=random.Random(3))
    delays = [backoff.next_delay(7.0) for _ in range(200)]
    assert all(7.0 <= delay <= 8.0 for delay in delays)
    assert max(delays) - min(delays) > 0.9
    assert backoff.ceiling() == 1.0


def test_only_a_503s_retry_after_in_seconds_is_taken_and_capped() -> None:
    assert retry_after(503, {"Retry-After": "12"}) == 12.0
    assert retry_after(503, {"Retry-After": "999999"}) == MAX_RETRY_AFTER_SECONDS
    for status, headers in [
        (429, {"Retry-After": "5"}),
        (503, {}),
        (503, {"Retry-After": "-1"}),
        (503, {"Retry-After": "1.5"}),
        (503, {"Retry-After": "Wed, 25 Nov 2026 10:00:00 GMT"}),
        (503, {"Retry-After": "\u0663"}),  # a digit, but not an ASCII one
    ]:
        assert retry_after(status, headers) is None
