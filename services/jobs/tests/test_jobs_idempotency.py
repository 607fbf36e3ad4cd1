"""Idempotency keys claimed in the creating transaction: whatever happened to the first answer on
its way back (a deadline, a gateway killed, a client gone), a repeat gets that job, never a second."""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import func, select

from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import upload_parts
from printcloud.core import rpc
from printcloud.jobs.persistence.tables import idempotency_keys, print_jobs
from printcloud.v1 import devices_pb2, jobs_pb2

if TYPE_CHECKING:
    from printcloud.core.scope import Scope
    from services.jobs.tests.conftest import Stack


def _request(
    stack: Stack, scope: Scope, printer: devices_pb2.Printer, key: str, fingerprint: str = "f1", title: str = "t"
) -> jobs_pb2.CreateJobRequest:
    return jobs_pb2.CreateJobRequest(
        scope=stack.proto_scope(scope),
        printer_id=printer.id,
        title=title,
        content_type="pdf_base64",
        idempotency_key=key,
        request_fingerprint=fingerprint,
    )


async def _create(stack: Stack, request: jobs_pb2.CreateJobRequest) -> jobs_pb2.CreateJobResponse:
    return await rpc.call(stack.jobs.CreateJob, upload_parts(request, stack.pdf))


async def _jobs_of(stack: Stack, scope: Scope) -> int:
    async with stack.db.read() as session:
        query = select(func.count()).where(print_jobs.c.organization_id == scope.organization_id)
        return (await session.execute(query)).scalar_one()


async def test_a_repeat_gets_the_first_job_as_first_answered(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    first = await _create(stack, _request(stack, scope, printer, "k-1"))
    claim = jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=first.job.id)
    assert (await rpc.call(stack.jobs.ClaimDelivery, claim)).claimed  # the job moves on meanwhile

    repeat = await _create(stack, _request(stack, scope, printer, "k-1"))

    assert not first.replayed and repeat.replayed
    assert repeat.job == first.job, "the first answer, `queued`, not the job as it is now"
    assert await _jobs_of(stack, scope) == 1


async def test_a_key_used_with_another_request_is_refused(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    await _create(stack, _request(stack, scope, printer, "k-2", fingerprint="first"))

    with pytest.raises(ApiError) as caught:
        await _create(stack, _request(stack, scope, printer, "k-2", fingerprint="other"))

    assert caught.value.code == "idempotency_key_reused"
    assert await _jobs_of(stack, scope) == 1


async def test_keys_belong_to_one_organization(stack: Stack) -> None:
    ours, theirs = stack.new_scope(), stack.new_scope()
    created = [
        await _create(stack, _request(stack, scope, stack.add_printer(scope), "shared")) for scope in (ours, theirs)
    ]
    assert [c.replayed for c in created] == [False, False]
    assert created[0].job.id != created[1].job.id


async def test_a_refused_create_leaves_its_key_free(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    refused = _request(stack, scope, printer, "k-3")
    refused.printer_id = str(uuid.uuid4())
    with pytest.raises(ApiError):
        await _create(stack, refused)

    created = await _create(stack, _request(stack, scope, printer, "k-3"))

    assert not created.replayed and created.job.printer_id == printer.id


async def test_concurrent_creates_with_one_key_make_one_job(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)

    outcomes = await asyncio.gather(
        *(_create(stack, _request(stack, scope, printer, "k-4")) for _ in range(6)), return_exceptions=True
    )

    answered = [o for o in outcomes if isinstance(o, jobs_pb2.CreateJobResponse)]
    refused = [o for o in outcomes if isinstance(o, ApiError)]
    assert len(answered) + len(refused) == len(outcomes)
    assert {r.code for r in refused} <= {"idempotency_in_progress"}
    assert [a.replayed for a in answered].count(False) == 1
    assert len({a.job.id for a in answered}) == 1
    assert await _jobs_of(stack, scope) == 1


@pytest.mark.parametrize("key", ["", "k" * 256])
async def test_a_key_outside_the_spec_length_is_invalid(stack: Stack, key: str) -> None:
    scope = stack.new_scope()
    with pytest.raises(ApiError) as caught:
        await _create(stack, _request(stack, scope, stack.add_printer(scope), key))
    assert caught.value.code == "invalid_request"


async def test_a_key_past_its_24_hours_can_be_used_again(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    first = await _create(stack, _request(stack, scope, printer, "k-5"))
    async with stack.db.transaction() as session:
        await session.execute(
            idempotency_keys.update()
            .where(idempotency_keys.c.organization_id == scope.organization_id)
            .values(created_at=func.now() - func.make_interval(0, 0, 0, 1, 0, 0, 1))
        )

    again = await _create(stack, _request(stack, scope, printer, "k-5", fingerprint="a new request"))
    assert not again.replayed and again.job.id != first.job.id
