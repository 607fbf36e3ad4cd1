"""Live prints counted in the creating transaction: the quota, what never counts, and GetUsage."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat
from printcloud.jobs.domain.usage import day_bounds, month_bounds
from printcloud.v1 import jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def _usage(stack: Stack, scope: Scope) -> jobs_pb2.Usage:
    return await rpc.call(stack.jobs.GetUsage, jobs_pb2.GetUsageRequest(scope=stack.proto_scope(scope)))


async def test_a_live_job_past_the_quota_is_refused_and_not_counted(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    for _ in range(2):
        await stack.create_job(scope, printer, live_print_quota=2, qty=5, options_json='{"copies": 3}')
    with pytest.raises(ApiError) as refused:
        await stack.create_job(scope, printer, live_print_quota=2)
    assert refused.value.code == "quota_exceeded" and refused.value.status == 402
    # One print per job, whatever qty and copies; the refused one took its count back.
    assert (await _usage(stack, scope)).live_prints == 2
    # A higher quota (an upgraded plan) admits the next one at once.
    await stack.create_job(scope, printer, live_print_quota=3)
    assert (await _usage(stack, scope)).live_prints == 3


async def test_concurrent_creates_never_pass_the_quota(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    outcomes = await asyncio.gather(
        *(stack.create_job(scope, printer, live_print_quota=10) for _ in range(30)), return_exceptions=True
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 10
    assert all(o.code == "quota_exceeded" for o in outcomes if isinstance(o, ApiError))
    assert (await _usage(stack, scope)).live_prints == 10


async def test_test_jobs_and_failed_creates_never_count_as_live_prints(stack: Stack) -> None:
    live = stack.new_scope()
    test = stack.new_scope("test")
    printer = stack.add_printer(live)
    with pytest.raises(ApiError):
        await stack.create_job(live, printer, content_type="pdf_base64", data=b"not a pdf", live_print_quota=5)
    await stack.create_job(test, stack.add_printer(test), live_print_quota=0)
    assert (await _usage(stack, live)).live_prints == 0
    test_usage = await _usage(stack, test)
    assert (test_usage.live_prints, test_usage.test_jobs_today) == (0, 1)


async def test_usage_names_the_current_month_and_day(stack: Stack) -> None:
    scope = stack.new_scope()
    usage = await _usage(stack, scope)
    now = datetime.now(UTC)
    start, end = month_bounds(now)
    assert (usage.period_start, usage.period_end) == (isoformat(start), isoformat(end))
    assert usage.day_end.endswith("T00:00:00.000Z") and usage.test_jobs_per_day > 0


def test_periods_are_calendar_months_and_days_in_utc() -> None:
    late = datetime(2030, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert month_bounds(late) == (datetime(2030, 12, 1, tzinfo=UTC), datetime(2031, 1, 1, tzinfo=UTC))
    assert month_bounds(datetime(2031, 2, 28, 12, tzinfo=UTC))[1] == datetime(2031, 3, 1, tzinfo=UTC)
    assert day_bounds(late) == (datetime(2030, 12, 31, tzinfo=UTC), datetime(2031, 1, 1, tzinfo=UTC))
