"""Live prints counted by the creating statement: the quota, what never counts, and GetUsage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import func, select

from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.scope import Scope
from printcloud.core.timeutil import isoformat
from printcloud.jobs.domain.usage import day_bounds, month_bounds
from printcloud.jobs.persistence.tables import job_state_changes, print_jobs, stored_files
from printcloud.jobs.use_cases.deliveries import FILE_CHUNK_BYTES
from printcloud.v1 import jobs_pb2
from services.jobs.tests.conftest import PDF

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


# A create is one statement, alone or inside a transaction with what else it needs (a key to
# record, a document's further pieces); the limit holds either way.
_SUBMISSIONS: dict[str, Callable[[int], dict[str, Any]]] = {
    "one statement alone": lambda n: {},
    "with an idempotency key": lambda n: {"idempotency_key": f"key-{n}", "request_fingerprint": "f"},
    "with a document of two pieces": lambda n: {"data": PDF + bytes(FILE_CHUNK_BYTES)},
}


@pytest.mark.parametrize("submission", list(_SUBMISSIONS))
async def test_concurrent_creates_never_pass_the_quota(stack: Stack, submission: str) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    fields = _SUBMISSIONS[submission]
    outcomes = await asyncio.gather(
        *(stack.create_job(scope, printer, live_print_quota=10, **fields(n)) for n in range(30)),
        return_exceptions=True,
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 10
    assert all(o.code == "quota_exceeded" for o in outcomes if isinstance(o, ApiError))
    assert (await _usage(stack, scope)).live_prints == 10
    assert await _rows_of(stack, scope) == {"jobs": 10, "files": 10, "state changes": 10}


@pytest.mark.parametrize("submission", list(_SUBMISSIONS))
async def test_a_refused_create_leaves_nothing_behind(stack: Stack, submission: str) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    fields = _SUBMISSIONS[submission]
    await stack.create_job(scope, printer, live_print_quota=1, **fields(1))
    with pytest.raises(ApiError) as refused:
        await stack.create_job(scope, printer, live_print_quota=1, **fields(2))
    assert refused.value.code == "quota_exceeded"
    assert await _rows_of(stack, scope) == {"jobs": 1, "files": 1, "state changes": 1}
    assert (await _usage(stack, scope)).live_prints == 1


async def _rows_of(stack: Stack, scope: Scope) -> dict[str, int]:
    """How many jobs, stored files and state changes the organization has."""
    counted = {"jobs": print_jobs, "files": stored_files, "state changes": job_state_changes}
    rows = {}
    async with stack.db.read() as session:
        for name, table in counted.items():
            query = select(func.count()).where(table.c.organization_id == scope.organization_id)
            rows[name] = (await session.execute(query)).scalar_one()
    return rows


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
