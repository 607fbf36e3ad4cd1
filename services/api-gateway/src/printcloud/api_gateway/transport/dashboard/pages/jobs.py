"""Printing a PDF, the jobs list with its search, and a job's page (state, history, cancel, reprint)."""

from __future__ import annotations

import base64
from datetime import date, timedelta
from typing import Any

from starlette.datastructures import FormData, UploadFile
from starlette.responses import HTMLResponse, Response

from printcloud.api_gateway.transport.dashboard.api_client import ApiClient, answer_as
from printcloud.api_gateway.transport.dashboard.form_state import EMPTY, FieldRefused, FormState, errors_of, sent
from printcloud.api_gateway.transport.dashboard.forms import UPLOAD_FORM_BYTES
from printcloud.api_gateway.transport.dashboard.pages.lookups import printers_by_id
from printcloud.api_gateway.transport.dashboard.pages.routing import SignedIn, dashboard_router
from printcloud.api_gateway.transport.dashboard.paging import Pager, page_of
from printcloud.api_gateway.transport.dashboard.web import PREFIX, Page, field, redirect
from printcloud.api_gateway.transport.schemas import PrintJobListQuery
from printcloud.contracts.enums import CANCELLABLE_JOB_STATES, TERMINAL_JOB_STATES
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import PrintJobCreate
from printcloud.contracts.resources import PrintJob
from printcloud.core.db.list_filters import JOB_STATES
from printcloud.core.ids import parse_uuid
from printcloud.core.timeutil import utcnow

router = dashboard_router()

# The API's own limit on documents (spec, content rules).
MAX_PDF_BYTES = 25 * 1024 * 1024
SOURCE = "dashboard"
# Stored files are kept 7 days (spec); the download is offered while the file may still be there.
FILE_RETENTION = timedelta(days=7)
PAGE_SIZE = 25
# The print and reprint forms name their printer field as the body does, and the jobs search its
# printer filter so.
PRINTER_ID = public_name(PrintJobCreate, lambda body: body.printerId)
_CONTENT_TYPE = public_name(PrintJobCreate, lambda body: body.contentType)
_REPRINT_OF = public_name(PrintJobCreate, lambda body: body.reprintOf)
_PRINTER_FILTER = public_name(PrintJobListQuery, lambda query: query.printer_id)
# Form fields of the print form, by the API field a refusal names.
_PRINT_FIELDS = {PRINTER_ID: PRINTER_ID, "title": "title", "qty": "qty", "content": "document"}
_PRINT_CODES = {
    "printer_disabled": PRINTER_ID,
    "mode_mismatch": PRINTER_ID,
    "invalid_content": "document",
    "content_too_large": "document",
}


# --- Printing -------------------------------------------------------------------------------


async def _print_page(p: Page, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        printers = [printer for printer in (await printers_by_id(api)).values() if printer["enabled"]]
    chosen = form.value(PRINTER_ID, p.request.query_params.get(PRINTER_ID, ""))
    return await p.render("print.html", status, printers=printers, chosen=chosen, form=form)


@router.get("/print")
async def print_page(p: SignedIn) -> HTMLResponse:
    return await _print_page(p)


async def _document(form: FormData) -> bytes:
    upload = form.get("document")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise FieldRefused("document", "Choose a PDF file to print.")
    document = await upload.read(MAX_PDF_BYTES + 1)
    if len(document) > MAX_PDF_BYTES:
        raise FieldRefused("document", "The file is larger than 25 MB.")
    return document


def _copies(form: FormData) -> int:
    copies = field(form, "qty") or "1"
    if not copies.isdigit() or not 1 <= int(copies) <= 100:
        raise FieldRefused("qty", "Copies must be a whole number from 1 to 100.")
    return int(copies)


@router.post("/print")
async def print_pdf(p: SignedIn) -> Response:
    form = await p.form(UPLOAD_FORM_BYTES)
    try:
        try:
            document, copies = await _document(form), _copies(form)
        except FieldRefused as refused:
            return await _print_page(p, refused.state(form), 400)
        upload = form.get("document")
        filename = upload.filename if isinstance(upload, UploadFile) else None
        body = {
            PRINTER_ID: field(form, PRINTER_ID),
            "title": field(form, "title") or filename or "document.pdf",
            _CONTENT_TYPE: "pdf_base64",
            "content": base64.b64encode(document).decode(),
            "source": SOURCE,
            "qty": copies,
        }
        try:
            async with p.api() as api:
                job = await api.post("/v1/printjobs", body)
        except ApiError as exc:
            if exc.status >= 500 or exc.code in ("quota_exceeded", "test_mode_daily_cap", "rate_limited"):
                raise
            return await _print_page(p, FormState(sent(form), errors_of(exc, _PRINT_FIELDS, _PRINT_CODES)), exc.status)
    finally:
        await form.close()
    return redirect(f"/jobs/{job['id']}")


# --- The jobs list --------------------------------------------------------------------------


def _day(value: str, name: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise FieldRefused(name, "Enter a date as YYYY-MM-DD.") from None


def _api_filters(query: dict[str, str]) -> dict[str, str]:
    """The list endpoint's filters for what the search form says (days are whole UTC days)."""
    filters = {"state": query["state"], _PRINTER_FILTER: query[PRINTER_ID]}
    first, last = _day(query["from"], "from"), _day(query["to"], "to")
    if first:
        filters["createdFrom"] = f"{first.isoformat()}T00:00:00Z"
    if last:
        filters["createdTo"] = f"{last.isoformat()}T23:59:59.999999Z"
    if query["q"]:
        filters["title"] = query["q"]
    return filters


async def _job_by_id(api: ApiClient, job_id: str) -> list[dict[str, Any]]:
    try:
        return [await api.get(f"/v1/printjobs/{job_id}")]
    except ApiError as exc:
        if exc.code == "not_found":
            return []
        raise


@router.get("/jobs")
async def jobs_page(p: SignedIn) -> HTMLResponse:
    params = p.request.query_params
    query = {name: params.get(name, "").strip() for name in ("q", "state", PRINTER_ID, "from", "to")}
    form = FormState(query)
    jobs: list[dict[str, Any]] = []
    pager = Pager()
    async with p.api() as api:
        printers = await printers_by_id(api)
        job_id = parse_uuid(query["q"])
        try:
            if job_id is not None:
                jobs = await _job_by_id(api, str(job_id))
            else:
                jobs, pager = await page_of(
                    api, "/v1/printjobs", _api_filters(query), params.get("after", ""), params.get("before", ""),
                    PAGE_SIZE,
                )  # fmt: skip
        except FieldRefused as refused:
            form = FormState(query, {refused.field: refused.message})
        except ApiError as exc:
            if exc.code != "invalid_request":
                raise
            form = FormState(query, errors_of(exc, {"createdFrom": "from", "createdTo": "to", "title": "q"}))
    return await p.render(
        "jobs.html", jobs=jobs, pages=pager.links(f"{PREFIX}/jobs", query), form=form, states=JOB_STATES,
        printers=printers, searched=any(query.values()),
    )  # fmt: skip


# --- A job ----------------------------------------------------------------------------------


async def _optional(api: ApiClient, path: str) -> dict[str, Any] | None:
    """A resource that may have been deleted since (a printer, a computer)."""
    try:
        found: dict[str, Any] = await api.get(path)
    except ApiError as exc:
        if exc.code == "not_found":
            return None
        raise
    return found


def _file_kept(job: PrintJob) -> bool:
    return job.fileSize > 0 and utcnow() - job.createdAt < FILE_RETENTION


async def _job_page(p: Page, job_id: str, form: FormState = EMPTY, status: int = 200) -> HTMLResponse:
    async with p.api() as api:
        job = await api.get(f"/v1/printjobs/{job_id}")
        read = answer_as(PrintJob, job)
        history = (await api.get(f"/v1/printjobs/{job_id}/events"))["data"]
        printer = await _optional(api, f"/v1/printers/{read.printerId}")
        computer = await _optional(api, f"/v1/computers/{read.computerId}")
        printers = await printers_by_id(api) if p.can.print else {}
    return await p.render(
        "job.html", status, job=job, history=history, printer=printer, computer=computer, form=form,
        live=job["state"] not in TERMINAL_JOB_STATES, cancellable=job["state"] in CANCELLABLE_JOB_STATES,
        file_kept=_file_kept(read), reprint_printers=[p_ for p_ in printers.values() if p_["enabled"]],
    )  # fmt: skip


@router.get("/jobs/{job_id}")
async def job_page(p: SignedIn, job_id: str) -> HTMLResponse:
    return await _job_page(p, job_id)


@router.get("/jobs/{job_id}/cancel")
async def confirm_cancel(p: SignedIn, job_id: str) -> HTMLResponse:
    async with p.api() as api:
        job = await api.get(f"/v1/printjobs/{job_id}")
    return await p.confirm("cancel-job", job["title"], f"/jobs/{job_id}/cancel", f"/jobs/{job_id}")


@router.post("/jobs/{job_id}/cancel")
async def cancel_job(p: SignedIn, job_id: str) -> Response:
    await p.form()
    try:
        async with p.api() as api:
            await api.post(f"/v1/printjobs/{job_id}/cancel")
    except ApiError as exc:
        # The page offering Cancel was older than the job's state: say so on the job's page.
        if exc.code == "not_cancellable":
            return redirect(f"/jobs/{job_id}", "not-cancellable")
        raise
    return redirect(f"/jobs/{job_id}", "cancelled")


@router.post("/jobs/{job_id}/reprint")
async def reprint_job(p: SignedIn, job_id: str) -> Response:
    """The stored file again, with the copies asked for and the dashboard as its source."""
    form = await p.form()
    try:
        body = {
            PRINTER_ID: field(form, PRINTER_ID),
            "title": field(form, "title"),
            _REPRINT_OF: job_id,
            "qty": _copies(form),
            "source": SOURCE,
        }
        async with p.api() as api:
            job = await api.post("/v1/printjobs", body)
    except FieldRefused as refused:
        return await _job_page(p, job_id, refused.state(form), 400)
    except ApiError as exc:
        if exc.code not in ("invalid_request", "printer_disabled", "mode_mismatch"):
            raise
        errors = errors_of(exc, {PRINTER_ID: PRINTER_ID, "title": "title", "qty": "qty"}, _PRINT_CODES)
        return await _job_page(p, job_id, FormState(sent(form), errors), exc.status)
    return redirect(f"/jobs/{job['id']}", "reprinted")
