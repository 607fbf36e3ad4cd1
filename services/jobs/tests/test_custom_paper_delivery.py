"""A printer's saved custom paper named as a job's `paper`: accepted, and its size goes with the job."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from printcloud.core import rpc
from printcloud.jobs.domain.capabilities import custom_paper_named
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack

LABEL = devices_pb2.CustomPaper(name="Label 62x100", width=620, height=1000)


async def _delivery(stack: Stack, job: jobs_pb2.PrintJob) -> jobs_pb2.JobDelivery:
    pending = await rpc.call(stack.jobs.ListPendingJobs, jobs_pb2.ListPendingJobsRequest(computer_id=job.computer_id))
    return next(item for item in pending.items if item.job_id == job.id)


async def test_a_custom_paper_is_a_paper_of_its_printer_and_its_size_is_delivered(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    printer.capabilities_json = json.dumps({"papers": {"A4": [2100, 2970]}, "supports_custom_paper_size": True})
    printer.custom_papers.append(LABEL)

    job = await stack.create_job(scope, printer, options_json=json.dumps({"paper": "Label 62x100"}))

    assert json.loads(job.options_json) == {"paper": "Label 62x100"}
    assert not job.HasField("state_message")
    delivery = await _delivery(stack, job)
    assert delivery.custom_paper == jobs_pb2.PaperSize(name="Label 62x100", width=620, height=1000)
    # A later change to the printer's papers does not change the job already accepted.
    del printer.custom_papers[:]
    assert (await _delivery(stack, job)).custom_paper.width == 620


async def test_a_drivers_paper_carries_no_custom_size(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    printer.capabilities_json = json.dumps({"papers": {"A4": [2100, 2970]}})
    printer.custom_papers.append(LABEL)
    job = await stack.create_job(scope, printer, options_json=json.dumps({"paper": "A4"}))
    assert not (await _delivery(stack, job)).HasField("custom_paper")


def test_the_drivers_paper_wins_over_a_custom_paper_of_the_same_name() -> None:
    a4 = devices_pb2.CustomPaper(name="A4", width=1, height=1)
    capabilities = {"papers": {"A4": [2100, 2970]}}
    assert custom_paper_named({"paper": "A4"}, capabilities, [a4]) is None
    assert custom_paper_named({"paper": "A4"}, {}, [a4]) == {"name": "A4", "width": 1, "height": 1}
    assert custom_paper_named({}, capabilities, [a4]) is None
