from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Query
from pydantic import MISSING
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from printcloud.api_gateway.domain import idempotency
from printcloud.api_gateway.domain.identity import Identity
from printcloud.api_gateway.domain.print_jobs import (
    BASE64_CONTENT_TYPES,
    DEFAULT_EXPIRE_AFTER,
    DEFAULT_QTY,
    DEFAULT_SOURCE,
    check_body_form,
    decode_base64_content,
    decode_base64_in_place,
)
from printcloud.api_gateway.transport import idempotency_key
from printcloud.api_gateway.transport.auth import CancelKey, PrintKey, ReadKey
from printcloud.api_gateway.transport.bodies import read_json_object_with_large_field, validate_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import forwarded, page_request, path_id, scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body, link
from printcloud.api_gateway.transport.routes.usage import with_quota, with_upgrade_url
from printcloud.api_gateway.transport.schemas import NoQuery, PrintJobListQuery
from printcloud.contracts import representations
from printcloud.contracts.errors import ApiError, not_found
from printcloud.contracts.requests import PrintJobCreate
from printcloud.contracts.resources import JobStateChangeList, PrintJob, PrintJobPage
from printcloud.core import rpc
from printcloud.core.db import list_filters
from printcloud.core.ids import parse_uuid
from printcloud.core.telemetry.request_ids import request_id_var
from printcloud.core.timeutil import isoformat_or_none
from printcloud.v1 import jobs_pb2

router = APIRouter(prefix="/v1", tags=["print jobs"])


def _job_links(source: str) -> dict[str, dict[str, Any]]:
    return {
        "GetPrintJob": link("get_print_job", source),
        "ListPrintJobEvents": link("list_print_job_events", source),
        "CancelPrintJob": link("cancel_print_job", source),
        "GetPrintJobFile": link("get_print_job_file", source),
    }


def job_filters(query: PrintJobListQuery) -> jobs_pb2.JobFilters:
    """Refused here by the rules and in the words the jobs service checks them by again."""
    checked = list_filters.job_filters(
        printer_id=query.printer_id,
        computer_id=query.computer_id,
        state=query.state,
        created_from=query.createdFrom,
        created_to=query.createdTo,
        title=query.title,
    )
    return jobs_pb2.JobFilters(
        printer_id=None if checked.printer_id is None else str(checked.printer_id),
        computer_id=None if checked.computer_id is None else str(checked.computer_id),
        state=checked.state,
        created_from=isoformat_or_none(checked.created_from),
        created_to=isoformat_or_none(checked.created_to),
        title_contains=checked.title_contains,
    )


def create_job_request(
    body: PrintJobCreate, identity: Identity, content_aside: memoryview | None = None
) -> tuple[jobs_pb2.CreateJobRequest, bytearray | memoryview | None]:
    """The request for the jobs service, and the decoded document for the base64 forms.
    `content_aside` is `content` when it was set aside from the body before parsing."""
    check_body_form(body.model_fields_set)
    printer_id = parse_uuid(body.printerId)
    if printer_id is None:
        raise not_found("printer")
    request = jobs_pb2.CreateJobRequest(
        scope=scope_of(identity),
        printer_id=str(printer_id),
        title=body.title,
        source=DEFAULT_SOURCE if body.source is MISSING else body.source,
        qty=DEFAULT_QTY if body.qty is MISSING else body.qty,
        expire_after=DEFAULT_EXPIRE_AFTER if body.expireAfter is MISSING else body.expireAfter,
        options_json=json.dumps({} if body.options is MISSING else body.options),
        request_id=request_id_var.get() or "",
    )
    if body.reprintOf is not MISSING:
        original = parse_uuid(body.reprintOf)
        if original is None:
            raise not_found("print job")
        request.reprint_of = str(original)
        return request, None
    assert body.contentType is not MISSING and body.content is not MISSING  # guaranteed by check_body_form
    request.content_type = body.contentType
    if body.authentication is not MISSING:
        credentials = body.authentication.credentials
        request.authentication.CopyFrom(jobs_pb2.BasicAuth(user=credentials.user, **{"pass": credentials.password}))
    if body.contentType not in BASE64_CONTENT_TYPES:
        request.url = body.content if content_aside is None else content_aside.tobytes().decode("ascii")
        return request, None
    if content_aside is not None:
        return request, decode_base64_in_place(content_aside)
    document = decode_base64_content(body.content)
    body.content = MISSING  # the text, a third larger than the file, need not wait for the upload
    return request, document


@router.post(
    "/printjobs",
    **documented(
        201,
        PrintJob,
        402,
        404,
        409,
        410,
        413,
        422,
        links=_job_links("$response.body#/id"),
        headers={
            idempotency_key.REPLAYED_HEADER: {
                "description": "`true` when this is the first answer to the same key and body, replayed",
                "required": False,
                "schema": {"type": "string", "enum": ["true"]},
            }
        },
        description="The job, `queued`",
    ),
    openapi_extra={
        **json_body(PrintJobCreate),
        "parameters": [
            {
                "name": idempotency_key.HEADER,
                "in": "header",
                "required": False,
                "schema": {"type": "string", "minLength": 1, "maxLength": idempotency_key.MAX_LENGTH},
            }
        ],
    },
)
async def create_print_job(request: Request, identity: PrintKey, _: Annotated[NoQuery, Query()]) -> Response:
    """Print a document

    Creates a job in state `queued` for `printerId` and answers `201`. The document is a PDF or raw
    printer data (ZPL, PCL, …), given as standard base64 (`pdf_base64`, `raw_base64`) or as an http(s)
    URL fetched once right after creation (`pdf_uri`, `raw_uri`; `authentication` for Basic auth), up
    to 25 MB. Or reprint an earlier job's stored file with `reprintOf` (kept 7 days). Options omitted
    are taken from the printer's `defaultOptions`; an option the printer cannot honour is dropped with
    a warning in `stateMessage`. Follow the job with `GET /v1/printjobs/{id}`, the event feed or
    webhooks: it ends `done`, `error`, `cancelled` or `expired`.

    Send an `Idempotency-Key` (up to 255 characters) and the same key on every retry: a repeat of the
    same body answers the first job again with `Idempotent-Replayed: true`.

    Scope: `print`.

    Errors: `400 invalid_request` (a missing or unknown field, a value out of range, an unknown option,
    both or neither of `content` and `reprintOf`); `402 quota_exceeded` (the plan's live prints used up,
    with `upgrade_url`); `404 not_found` (printer or reprinted job); `409 idempotency_in_progress`;
    `410 file_expired` (a reprint whose file is gone); `413 content_too_large`; `422 invalid_content`
    (base64 that is no PDF), `invalid_content_url`, `printer_disabled`, `mode_mismatch` (a printer of
    the other mode), `idempotency_key_reused` (same key, other body); `429 test_mode_daily_cap`.

    Example: `POST /v1/printjobs` with `Idempotency-Key: invoice-1042` and

    ```json
    {"printerId": "…", "title": "Invoice 1042", "contentType": "pdf_uri",
     "content": "https://example.com/invoice.pdf", "options": {"copies": 2, "duplex": "long-edge"}}
    ```
    """
    # Jobs claims the idempotency key in the transaction that creates the job, so whatever fails between here and
    # there (a deadline, a client gone, this process killed), a retry with the key gets the first job, never a second
    # one.
    deps: GatewayDeps = request.app.state.deps
    header = request.headers.get(idempotency_key.HEADER)
    key = idempotency_key.checked_key(header) if header is not None else None
    data, content_aside = await read_json_object_with_large_field(request, "content")
    body = validate_body(data, PrintJobCreate)
    fingerprint = idempotency.fingerprint(identity.mode, data, content_aside) if key is not None else ""
    del data  # the model holds what is needed; a second copy of the text must not outlive this
    job_request, document = create_job_request(body, identity, content_aside)
    del content_aside  # the document, decoded in place, now holds the body's buffer
    if key is not None:
        job_request.idempotency_key, job_request.request_fingerprint = key, fingerprint
    with_quota(job_request, identity, deps)
    try:
        created = await deps.job_creation.create(job_request, document)
    except ApiError as error:
        raise with_upgrade_url(error, deps) from None
    headers = {idempotency_key.REPLAYED_HEADER: "true"} if created.replayed else None
    return JSONResponse(representations.print_job(created.job), status_code=201, headers=headers)


@router.get("/printjobs", **documented(200, PrintJobPage, links=_job_links("$response.body#/data/0/id")))
async def list_print_jobs(
    request: Request, identity: ReadKey, query: Annotated[PrintJobListQuery, Query()]
) -> JSONResponse:
    """List print jobs

    Jobs of the key's organization and mode, newest first by default, filtered by `printerId`,
    `computerId`, `state` and creation time (`createdFrom`, `createdTo`: ISO 8601 with a time zone,
    inclusive).

    Scope: `read`.

    Errors: `400 invalid_request` for a malformed filter or paging parameter.

    Example: `GET /v1/printjobs?state=error&createdFrom=2026-01-01T00:00:00Z`.
    """
    deps: GatewayDeps = request.app.state.deps
    page = await rpc.call(
        deps.jobs.ListJobs,
        jobs_pb2.ListJobsRequest(scope=scope_of(identity), page=page_request(query), filters=job_filters(query)),
    )
    return JSONResponse(representations.page(page.items, page.page, representations.print_job))


@router.get("/printjobs/{id}", **documented(200, PrintJob, 404, links=_job_links("$response.body#/id")))
async def get_print_job(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> Response:
    """Get a print job

    The job with its state, the time it entered each state, and `stateMessage` (why it failed, or which
    options were dropped).

    Scope: `read`.

    Errors: `404 not_found`.

    Example: `GET /v1/printjobs/{id}`.
    """
    deps: GatewayDeps = request.app.state.deps
    job = await rpc.call(
        deps.jobs.ShowJob, jobs_pb2.GetJobRequest(scope=scope_of(identity), id=path_id(id, "print job"))
    )
    return forwarded(job)


@router.get("/printjobs/{id}/events", **documented(200, JobStateChangeList, 404))
async def list_print_job_events(
    request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]
) -> JSONResponse:
    """A print job's state history

    Every state change of the job, oldest first, with who made it (`api`, `user`, `agent`, `system`)
    and its message. Not paged.

    Scope: `read`.

    Errors: `404 not_found`.

    Example: `GET /v1/printjobs/{id}/events`.
    """
    deps: GatewayDeps = request.app.state.deps
    changes = await rpc.call(
        deps.jobs.ListJobStateChanges, jobs_pb2.GetJobRequest(scope=scope_of(identity), id=path_id(id, "print job"))
    )
    return JSONResponse({"data": [representations.job_state_change(change) for change in changes.items]})


def _download_name(title: str, content_type: str) -> str:
    """The title as a file name: `Content-Disposition` carries it as UTF-8 (RFC 6266), after a
    plain-ASCII fallback that keeps only characters safe in any file system."""
    extension = ".pdf" if content_type.startswith("pdf") else ".prn"
    stem = title.removesuffix(extension).strip() or "print-job"
    fallback = "".join(c if c.isascii() and (c.isalnum() or c in " ._-") else "_" for c in stem)[:100]
    return f"attachment; filename=\"{fallback}{extension}\"; filename*=UTF-8''{quote(stem + extension, safe='')}"


_FILE_CONTENT = {
    media: {"schema": {"type": "string", "format": "binary"}}
    for media in ("application/pdf", "application/octet-stream")
}


def _file_answer() -> dict[str, Any]:
    answer = documented(
        200, None, 404, 410, description="The stored file: PDF for `pdf_*` jobs, the raw data for `raw_*`"
    )
    answer["responses"][200]["content"] = _FILE_CONTENT
    return answer


@router.get("/printjobs/{id}/file", response_class=Response, **_file_answer())
async def get_print_job_file(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> Response:
    """Download a job's file

    The document the job prints, exactly as stored: `application/pdf` for PDF jobs,
    `application/octet-stream` for raw data, with a file name made from the title. Stored files are
    kept 7 days; the file of a URL job exists once the service has fetched it. Streamed as it is
    read.

    Scope: `read`.

    Errors: `404 not_found` for a job of another organization or mode; `410 file_expired` once the
    file is gone, or before a URL's file was fetched.

    Example: `GET /v1/printjobs/{id}/file`.
    """
    deps: GatewayDeps = request.app.state.deps
    ask = jobs_pb2.GetJobRequest(scope=scope_of(identity), id=path_id(id, "print job"))
    job = await rpc.call(deps.jobs.GetJob, ask)
    chunks = rpc.stream(deps.jobs.ReadStoredFile, ask)
    # The first chunk is read before answering, so that a refusal still gets its own status.
    first: jobs_pb2.FileChunk = await anext(chunks)

    async def body() -> AsyncIterator[bytes]:
        yield first.data
        async for chunk in chunks:
            yield chunk.data

    headers = {
        "Content-Length": str(first.file_size),
        "Content-Disposition": _download_name(job.title, job.content_type),
        "Cache-Control": "no-store",
    }
    media_type = "application/pdf" if job.content_type.startswith("pdf") else "application/octet-stream"
    return StreamingResponse(body(), media_type=media_type, headers=headers)


@router.post(
    "/printjobs/{id}/cancel",
    **documented(200, PrintJob, 404, 409, description="The job, `cancelled`; 409 once its agent has it"),
)
async def cancel_print_job(
    request: Request, id: str, identity: CancelKey, _: Annotated[NoQuery, Query()]
) -> JSONResponse:
    """Cancel a print job

    Cancels a job that is `queued` or `sent` and answers it, `cancelled`. Once the agent has received
    it, the job can no longer be cancelled.

    Scope: `print` (a dashboard member gets `403 forbidden`).

    Errors: `404 not_found`; `409 not_cancellable` once the job is `received` or later.

    Example: `POST /v1/printjobs/{id}/cancel` with no body.
    """
    deps: GatewayDeps = request.app.state.deps
    job = await rpc.call(
        deps.jobs.CancelJob, jobs_pb2.GetJobRequest(scope=scope_of(identity), id=path_id(id, "print job"))
    )
    return JSONResponse(representations.print_job(job))
