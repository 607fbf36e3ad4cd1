"""Jobs by state: a gauge counted from the database, final states left out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import REGISTRY

from printcloud.core import rpc
from printcloud.jobs.workers.job_metrics import measure_active_jobs
from printcloud.v1 import jobs_pb2

if TYPE_CHECKING:
    from conftest import Stack


def active(state: str, mode: str) -> float:
    return REGISTRY.get_sample_value("printcloud_print_jobs_active", {"state": state, "mode": mode}) or 0.0


async def test_jobs_in_progress_are_counted_by_state_and_mode(stack: Stack) -> None:
    scope = stack.new_scope()
    mode = scope.mode
    await measure_active_jobs(stack.service)
    before = {state: active(state, mode) for state in ("queued", "sent", "received", "printing")}

    printer = stack.add_printer(scope)
    kept = await stack.create_job(scope, printer)
    cancelled = await stack.create_job(scope, printer)
    await rpc.call(stack.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=cancelled.id))
    await measure_active_jobs(stack.service)

    assert active("queued", mode) == before["queued"] + 1, kept.id
    assert all(active(state, mode) == before[state] for state in ("sent", "received", "printing"))
    assert REGISTRY.get_sample_value("printcloud_print_jobs_active", {"state": "cancelled", "mode": mode}) is None
