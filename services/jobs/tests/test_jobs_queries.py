"""GetJob, ShowJob, ListJobs and ListJobStateChanges: scoping, filters and paging."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError
from printcloud.core import rpc
from printcloud.core.scope import Scope
from printcloud.v1 import common_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def list_jobs(
    stack: Stack, scope: Scope, page: common_pb2.PageRequest | None = None, **filters: str
) -> jobs_pb2.JobPage:
    request = jobs_pb2.ListJobsRequest(
        scope=stack.proto_scope(scope), page=page, filters=jobs_pb2.JobFilters(**filters)
    )
    return await rpc.call(stack.jobs.ListJobs, request)


def ids(page: jobs_pb2.JobPage) -> list[str]:
    return [job.id for job in page.items]


async def test_job_of_another_organization_or_mode_is_not_found(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    outsiders = [stack.new_scope(), Scope(scope.organization_id, "test")]

    for outsider in outsiders:
        request = jobs_pb2.GetJobRequest(scope=stack.proto_scope(outsider), id=job.id)
        for method in (stack.jobs.GetJob, stack.jobs.ShowJob, stack.jobs.ListJobStateChanges, stack.jobs.CancelJob):
            with pytest.raises(ApiError) as caught:
                await rpc.call(method, request)
            assert caught.value.code == "not_found"
        assert ids(await list_jobs(stack, outsider)) == []
    assert [c.state for c in await stack.state_changes(job.id)] == ["queued"]


async def test_show_job_is_get_job_as_the_api_renders_it(stack: Stack) -> None:
    """The gateway forwards ShowJob's bytes as they come: they must be what it would render itself."""
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope), title="Zoë's report")
    request = jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id)
    got = await rpc.call(stack.jobs.GetJob, request)
    shown = await rpc.call(stack.jobs.ShowJob, request)
    assert shown.json == representations.as_json(representations.print_job(got))
    assert json.loads(shown.json)["title"] == "Zoë's report"


async def test_an_id_that_is_not_a_uuid_is_not_found(stack: Stack) -> None:
    request = jobs_pb2.GetJobRequest(scope=stack.proto_scope(stack.new_scope()), id="42")
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.GetJob, request)
    assert caught.value.code == "not_found"


async def test_list_pages_through_the_scope_newest_first_by_default(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    created = [(await stack.create_job(scope, printer, title=f"job {i}")).id for i in range(5)]

    first = await list_jobs(stack, scope, common_pb2.PageRequest(limit=2))
    second = await list_jobs(stack, scope, common_pb2.PageRequest(limit=2, after=first.page.next_cursor))
    last = await list_jobs(stack, scope, common_pb2.PageRequest(limit=2, after=second.page.next_cursor))

    assert ids(first) + ids(second) + ids(last) == created[::-1]
    assert (first.page.has_more, second.page.has_more, last.page.has_more) == (True, True, False)
    assert last.page.next_cursor == created[0]
    oldest_first = await list_jobs(stack, scope, common_pb2.PageRequest(limit=10, dir="asc"))
    assert ids(oldest_first) == created


async def test_list_filters(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    other_printer = stack.add_printer(scope)
    a = await stack.create_job(scope, printer)
    b = await stack.create_job(scope, other_printer)
    c = await stack.create_job(scope, printer)
    await rpc.call(stack.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=c.id))

    assert ids(await list_jobs(stack, scope, printer_id=printer.id)) == [c.id, a.id]
    assert ids(await list_jobs(stack, scope, computer_id=other_printer.computer_id)) == [b.id]
    assert ids(await list_jobs(stack, scope, state="cancelled")) == [c.id]
    assert ids(await list_jobs(stack, scope, state="queued", printer_id=printer.id)) == [a.id]
    assert ids(await list_jobs(stack, scope, created_from=b.created_at)) == [c.id, b.id]
    assert ids(await list_jobs(stack, scope, created_to=b.created_at)) == [b.id, a.id]
    assert ids(await list_jobs(stack, scope, created_from=b.created_at, created_to=b.created_at)) == [b.id]
    offset_form = b.created_at.replace("Z", "+00:00")
    assert ids(await list_jobs(stack, scope, created_from=offset_form, created_to=offset_form)) == [b.id]


@pytest.mark.parametrize(
    "filters",
    [
        {"state": "lost"},
        {"created_from": "yesterday"},
        {"created_to": "2024-01-01T00:00:00"},  # no time zone
        {"printer_id": "not-a-uuid"},
        {"computer_id": ""},
    ],
)
async def test_invalid_filters_are_rejected(stack: Stack, filters: dict[str, str]) -> None:
    with pytest.raises(ApiError) as caught:
        await list_jobs(stack, stack.new_scope(), None, **filters)
    assert caught.value.code == "invalid_request"


@pytest.mark.parametrize(
    "page",
    [
        common_pb2.PageRequest(after="page-2"),
        common_pb2.PageRequest(after=""),
        common_pb2.PageRequest(limit=101),
        common_pb2.PageRequest(limit=-1),
        common_pb2.PageRequest(dir="sideways"),
    ],
)
async def test_invalid_paging_is_rejected(stack: Stack, page: common_pb2.PageRequest) -> None:
    with pytest.raises(ApiError) as caught:
        await list_jobs(stack, stack.new_scope(), page)
    assert caught.value.code == "invalid_request"


async def test_state_changes_are_listed_oldest_first(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)
    agent = jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id)
    await rpc.call(stack.jobs.ClaimDelivery, agent)
    await rpc.call(
        stack.jobs.ReportJobState,
        jobs_pb2.ReportJobStateRequest(computer_id=printer.computer_id, job_id=job.id, state="error", message="jam"),
    )

    listed = await rpc.call(
        stack.jobs.ListJobStateChanges, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id)
    )

    assert [(c.state, c.actor) for c in listed.items] == [("queued", "api"), ("sent", "system"), ("error", "agent")]
    assert [c.HasField("message") for c in listed.items] == [False, False, True]
    assert listed.items[2].message == "jam"
    assert [c.created_at for c in listed.items] == sorted(c.created_at for c in listed.items)


async def test_the_edge_answers_bad_values_as_the_other_services_do(stack: Stack) -> None:
    """Core parses every request: a path id that is no UUID names nothing (404), while a malformed
    scope or a computer id that is no UUID is a bad request (400)."""
    scope = stack.proto_scope(stack.new_scope())
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.GetJob, jobs_pb2.GetJobRequest(scope=scope, id="not-a-uuid"))
    assert caught.value.code == "not_found"
    bad_scope = common_pb2.Scope(organization_id="acme", mode="live")
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.ListJobs, jobs_pb2.ListJobsRequest(scope=bad_scope))
    assert caught.value.code == "invalid_request"
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.ListPendingJobs, jobs_pb2.ListPendingJobsRequest(computer_id="nope"))
    assert caught.value.code == "invalid_request"
