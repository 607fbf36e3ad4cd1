"""The profile's count of each thread's CPU, which says what py-spy's GIL-holding samples leave out."""

from __future__ import annotations

import os
import threading
import time

from printcloud.devstack.bench.profile import thread_cpu, thread_shares


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_busy_thread_is_counted_as_its_own_and_the_waiting_main_thread_as_little() -> None:
    before = thread_cpu(os.getpid())
    burned, done = threading.Event(), threading.Event()

    def burn_then_wait() -> None:
        # It stays alive, waiting, once it has burned: a thread that has ended is not there to count.
        _burn(0.3)
        burned.set()
        done.wait()

    burner = threading.Thread(target=burn_then_wait)
    burner.start()
    try:
        burned.wait()
        shares = thread_shares(before, thread_cpu(os.getpid()))
    finally:
        done.set()
        burner.join()
    assert shares[0].name != "main", shares
    assert shares[0].share > 0.5, shares
    assert shares[0].seconds >= 0.25, shares


def test_the_main_thread_is_named_main_and_a_thread_started_later_counts_from_nothing() -> None:
    pid = os.getpid()
    names = {name for name, _ in thread_cpu(pid).values()}
    assert "main" in names
    shares = thread_shares({pid: ("main", 1.0)}, {pid: ("main", 1.5), pid + 1: ("event_engine", 1.5)})
    assert [(share.name, share.seconds, share.share) for share in shares] == [
        ("event_engine", 1.5, 0.75),
        ("main", 0.5, 0.25),
    ]
    assert str(shares[0]) == " 75.0%     1,500 ms  event_engine (1 of them)"


def test_nothing_is_written_for_a_process_that_used_no_cpu_or_has_ended() -> None:
    assert thread_shares({1: ("main", 2.0)}, {1: ("main", 2.0)}) == []
    assert thread_cpu(2**22 + 12345) == {}
