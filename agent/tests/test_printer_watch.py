"""When the agent asks its spooler again, and what counts as a change worth reporting."""

from __future__ import annotations

import asyncio
import time

from printcloud.agent.printer_watch import (
    MAX_POLL_SECONDS,
    MIN_CHECK_GAP_SECONDS,
    MIN_POLL_SECONDS,
    PrinterWatch,
    bounded_poll,
    printers_differ,
)
from printcloud.protocol.messages import PrinterReport

OFFICE = PrinterReport(name="office")
LABEL = PrinterReport(name="label")


def test_the_poll_interval_is_bounded() -> None:
    assert bounded_poll(0.01) == MIN_POLL_SECONDS
    assert bounded_poll(10) == 10
    assert bounded_poll(86400) == MAX_POLL_SECONDS


def test_waits_are_jittered_around_the_interval() -> None:
    low = PrinterWatch(10, uniform=lambda a, b: a).next_delay()
    high = PrinterWatch(10, uniform=lambda a, b: b).next_delay()
    assert (low, high) == (8.0, 12.0)


def test_only_a_difference_in_what_is_said_is_a_change() -> None:
    assert not printers_differ([OFFICE, LABEL], [LABEL, OFFICE]), "the order of the list is not news"
    assert printers_differ([OFFICE], [OFFICE, LABEL])
    jammed = OFFICE.model_copy(update={"state": "offline", "state_reasons": ["media-jam"]})
    assert printers_differ([jammed, LABEL], [OFFICE, LABEL])
    assert printers_differ([OFFICE, OFFICE], [OFFICE, LABEL])


async def test_a_signal_cuts_the_wait_short_but_not_below_the_gap_between_checks() -> None:
    changed = asyncio.Event()
    watch = PrinterWatch(3600, changed)
    started = time.monotonic()
    async with asyncio.timeout(30):  # without the signal each wait would be an hour
        changed.set()
        await watch.next_check()
        changed.set()
        await watch.next_check()
    assert time.monotonic() - started >= MIN_CHECK_GAP_SECONDS
    assert not changed.is_set()
