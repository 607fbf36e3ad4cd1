"""CreateJob over gRPC against PostgreSQL: what is stored, recorded and announced, and each refusal."""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import TYPE_CHECKING, Any

import pytest

from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import MAX_DOCUMENT_BYTES, SLICE_BYTES, upload_parts
from printcloud.core import rpc
from printcloud.core.kafka.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.v1 import common_pb2, jobs_pb2

if TYPE_CHECKING:
    from services.jobs.tests.conftest import Stack


async def test_created_job_is_queued_with_its_file_and_defaults(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope, default_options={"duplex": "long-edge", "copies": 3}, name="Office_Laser")

    job = await stack.create_job(scope, printer, source="erp", qty=2, expire_after=3600, options_json='{"copies": 1}')

    assert job.state == "queued"
    assert (job.organization_id, job.mode) == (str(scope.organization_id), "live")
    assert (job.printer_id, job.computer_id) == (printer.id, printer.computer_id)
    assert (job.title, job.content_type, job.source, job.qty, job.expire_after) == (
        "Invoice 42",
        "pdf_base64",
        "erp",
        2,
        3600,
    )
    assert json.loads(job.options_json) == {"copies": 1, "duplex": "long-edge"}
    assert job.file_sha256 == hashlib.sha256(stack.pdf).hexdigest()
    assert job.file_size == len(stack.pdf)
    assert job.created_at.endswith("Z") and job.expires_at > job.created_at
    assert not job.HasField("sent_at") and not job.HasField("state_message")
    fetched = await rpc.call(stack.jobs.GetJob, jobs_pb2.GetJobRequest(scope=stack.proto_scope(scope), id=job.id))
    assert fetched == job


async def test_omitted_fields_take_the_spec_defaults(stack: Stack) -> None:
    scope = stack.new_scope()
    job = await stack.create_job(scope, stack.add_printer(scope))
    assert (job.source, job.qty, job.expire_after, json.loads(job.options_json)) == ("api", 1, 86_400, {})


async def test_creation_records_one_state_change_and_announces_the_job(stack: Stack) -> None:
    scope = stack.new_scope("test")
    printer = stack.add_printer(scope)
    job = await stack.create_job(scope, printer)

    changes = await stack.state_changes(job.id)
    assert [(c.state, c.actor, c.message) for c in changes] == [("queued", "api", None)]

    event, command = await stack.outbox_rows(job.id)
    assert (event.topic, event.key) == (DOMAIN_EVENTS, job.id)
    assert event.payload["type"] == "printjob.queued"
    assert (event.payload["organizationId"], event.payload["mode"]) == (str(scope.organization_id), "test")
    assert event.payload["data"] == representations.print_job(job)
    assert (command.topic, command.key) == (AGENT_COMMANDS, printer.computer_id)
    assert command.payload["type"] == "job.deliver"
    assert command.payload["data"] == {"computerId": printer.computer_id, "jobId": job.id}


async def test_raw_job_keeps_options_as_sent_without_printer_defaults(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope, default_options={"duplex": "long-edge"})
    job = await stack.create_job(
        scope, printer, content_type="raw_base64", data=b"^XA^XZ", options_json='{"copies": 2}'
    )

    assert json.loads(job.options_json) == {"copies": 2}
    claimed = await rpc.call(
        stack.jobs.ClaimDelivery, jobs_pb2.ClaimDeliveryRequest(computer_id=printer.computer_id, job_id=job.id)
    )
    delivery = claimed.delivery
    assert json.loads(delivery.options_json) == {}


async def test_printer_of_another_organization_is_not_found(stack: Stack) -> None:
    scope = stack.new_scope()
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, stack.add_printer(stack.new_scope()))
    assert caught.value.code == "not_found"


async def test_printer_of_the_other_mode_is_a_mode_mismatch(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(type(scope)(scope.organization_id, "test"))
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, printer)
    assert caught.value.code == "mode_mismatch"


async def test_disabled_printer_is_refused(stack: Stack) -> None:
    scope = stack.new_scope()
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, stack.add_printer(scope, enabled=False))
    assert caught.value.code == "printer_disabled"


async def test_pdf_that_is_not_a_pdf_is_refused(stack: Stack) -> None:
    scope = stack.new_scope()
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, stack.add_printer(scope), data=b"GIF89a")
    assert caught.value.code == "invalid_content"


@pytest.mark.parametrize(
    ("fields", "in_message"),
    [
        ({"options_json": '{"staple": true}'}, "staple"),
        ({"options_json": '{"copies": "2"}'}, "copies"),
        ({"title": "x" * 256}, "title"),
        ({"qty": 101}, "qty"),
        ({"expire_after": 30}, "expireAfter"),
        ({"content_type": "pdf_uri", "data": None, "url": ""}, "URL"),
        ({"reprint_of": "0190a0a0-0000-7000-8000-000000000000"}, "reprint"),
    ],
)
async def test_invalid_requests_are_refused_and_store_nothing(
    stack: Stack, fields: dict[str, Any], in_message: str
) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    with pytest.raises(ApiError) as caught:
        await stack.create_job(scope, printer, **fields)
    assert caught.value.code == "invalid_request"
    assert in_message in caught.value.message
    page = await rpc.call(stack.jobs.ListJobs, jobs_pb2.ListJobsRequest(scope=stack.proto_scope(scope)))
    assert list(page.items) == []


async def test_scope_must_name_an_organization_and_a_mode(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    request = jobs_pb2.CreateJobRequest(
        scope=common_pb2.Scope(organization_id=str(uuid.uuid4()), mode="staging"),
        printer_id=printer.id,
        title="t",
        content_type="pdf_base64",
    )
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.CreateJob, upload_parts(request, stack.pdf))
    assert caught.value.code == "invalid_request"


async def test_a_document_streamed_past_25_mb_is_refused_before_it_is_stored(stack: Stack) -> None:
    scope = stack.new_scope()
    printer = stack.add_printer(scope)
    request = jobs_pb2.CreateJobRequest(
        scope=stack.proto_scope(scope), printer_id=printer.id, title="t", content_type="raw_base64"
    )
    slices = MAX_DOCUMENT_BYTES // SLICE_BYTES + 1
    parts = [jobs_pb2.CreateJobPart(request=request)] + [jobs_pb2.CreateJobPart(data=b"^" * SLICE_BYTES)] * slices
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.CreateJob, iter(parts))
    assert caught.value.code == "content_too_large"
    page = await rpc.call(stack.jobs.ListJobs, jobs_pb2.ListJobsRequest(scope=stack.proto_scope(scope)))
    assert list(page.items) == []


@pytest.mark.parametrize(
    ("parts", "in_message"),
    [
        ([], "missing"),
        ([jobs_pb2.CreateJobPart(data=b"%PDF-")], "before"),
        ([jobs_pb2.CreateJobPart(request=jobs_pb2.CreateJobRequest())] * 2, "twice"),
    ],
    ids=["no request", "document first", "request twice"],
)
async def test_a_malformed_upload_stream_is_invalid(
    stack: Stack, parts: list[jobs_pb2.CreateJobPart], in_message: str
) -> None:
    with pytest.raises(ApiError) as caught:
        await rpc.call(stack.jobs.CreateJob, iter(parts))
    assert caught.value.code == "invalid_request"
    assert in_message in caught.value.message


async def test_a_document_in_many_slices_is_stored_whole(stack: Stack) -> None:
    scope = stack.new_scope()
    document = stack.pdf + bytes(range(256)) * (3 * SLICE_BYTES // 256)
    job = await stack.create_job(scope, stack.add_printer(scope), data=document)
    assert (job.file_size, job.file_sha256) == (len(document), hashlib.sha256(document).hexdigest())
