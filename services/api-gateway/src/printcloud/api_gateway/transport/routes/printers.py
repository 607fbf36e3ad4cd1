"""Printers (spec "Printers"). Scopes: `read` for the GETs, `admin` for PATCH.

PATCH takes any of `defaultOptions`, `customPapers` (replaces the list), `displayName`, `enabled`
and `remarks` (null clears it). The gateway checks JSON types; the devices service checks the
values (print option rules, at most 50 papers, sizes) and answers `400 invalid_request`.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import MISSING
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from printcloud.api_gateway.domain.audit import Change
from printcloud.api_gateway.transport.audit_trail import record, sent_fields
from printcloud.api_gateway.transport.auth import AdminKey, ReadKey
from printcloud.api_gateway.transport.bodies import parse_json_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.jobs_client import forget_printers
from printcloud.api_gateway.transport.mapping import forwarded, page_request, path_id, scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body, link
from printcloud.api_gateway.transport.schemas import NoQuery, PagingQuery
from printcloud.contracts import representations
from printcloud.contracts.field_names import public_name
from printcloud.contracts.requests import PrinterUpdate, PrintJobCreate
from printcloud.contracts.resources import Printer, PrinterPage, PrintJobPage
from printcloud.core import rpc
from printcloud.v1 import common_pb2, devices_pb2, jobs_pb2

router = APIRouter(prefix="/v1", tags=["printers"])

_JOB_PRINTER = public_name(PrintJobCreate, lambda body: body.printerId)


def _printer_links(source: str) -> dict[str, dict[str, Any]]:
    """From a printer to what can be done with it, printing on it included."""
    return {
        "GetPrinter": link("get_printer", source),
        "UpdatePrinter": link("update_printer", source),
        "ListPrinterJobs": link("list_printer_jobs", source),
        "PrintOnPrinter": {"operationId": "create_print_job", "requestBody": {_JOB_PRINTER: source}},
    }


def _update_request(scope: common_pb2.Scope, printer_id: str, body: PrinterUpdate) -> devices_pb2.UpdatePrinterRequest:
    update = devices_pb2.UpdatePrinterRequest(scope=scope, id=printer_id)
    if body.defaultOptions is not MISSING:
        update.default_options_json = json.dumps(body.defaultOptions)
    if body.customPapers is not MISSING:
        papers = [devices_pb2.CustomPaper(name=p.name, width=p.width, height=p.height) for p in body.customPapers]
        update.custom_papers.CopyFrom(devices_pb2.CustomPaperList(items=papers))
    if body.displayName is not MISSING:
        update.display_name = body.displayName
    if body.enabled is not MISSING:
        update.enabled = body.enabled
    if body.remarks is None:
        update.clear_remarks = True
    elif body.remarks is not MISSING:
        update.remarks = body.remarks
    return update


@router.get("/printers", **documented(200, PrinterPage, links=_printer_links("$response.body#/data/0/id")))
async def list_printers(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> Response:
    """List printers

    Printers of the key's mode, with their capabilities, default options and custom papers. With a
    test key: the four virtual printers (`virtual-office`, `virtual-label`, `virtual-windows`,
    `virtual-photo`), which finish jobs in about 3 seconds without paper.

    Scope: `read`.

    Errors: `400 invalid_request` for bad paging parameters.

    Example: `GET /v1/printers?limit=100`.
    """
    deps: GatewayDeps = request.app.state.deps
    page = await rpc.call(
        deps.devices.ListPrinters,
        devices_pb2.ListPrintersRequest(scope=scope_of(identity), page=page_request(query), rendered=True),
    )
    return forwarded(page.representation)


@router.get("/printers/{id}", **documented(200, Printer, 404, links=_printer_links("$response.body#/id")))
async def get_printer(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> JSONResponse:
    """Get a printer

    One printer, with `capabilities` (papers, trays, resolutions, duplex, colour, …) read from its
    driver: the values its jobs' options may take.

    Scope: `read`.

    Errors: `404 not_found`.

    Example: `GET /v1/printers/{id}`.
    """
    deps: GatewayDeps = request.app.state.deps
    printer = await rpc.call(
        deps.devices.GetPrinter,
        devices_pb2.GetPrinterRequest(scope=scope_of(identity), id=path_id(id, "printer")),
    )
    return JSONResponse(representations.printer(printer))


@router.patch(
    "/printers/{id}",
    openapi_extra=json_body(PrinterUpdate),
    **documented(200, Printer, 404, 413, links=_printer_links("$response.body#/id")),
)
async def update_printer(request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> JSONResponse:
    """Change a printer's settings

    Any of: `defaultOptions` (applied when a job omits an option; checked like a job's `options`),
    `customPapers` (replaces the list; at most 50, names unique on the printer, each then usable as the
    `paper` option), `displayName`, `enabled` (the live switch: a disabled printer refuses jobs with
    `422 printer_disabled`), `remarks` (`null` clears it). A real change emits `printer.updated`.

    Scope: `admin`.

    Errors: `400 invalid_request` for an unknown field or option, a value out of range, two custom
    papers with the same name; `404 not_found`; `413 content_too_large` for a body over 40 MB.

    Example: `PATCH /v1/printers/{id}` with

    ```json
    {"defaultOptions": {"duplex": "long-edge"},
     "customPapers": [{"name": "Label 4x2", "width": 1016, "height": 508}]}
    ```
    """
    deps: GatewayDeps = request.app.state.deps
    printer_id = path_id(id, "printer")
    body = await parse_json_body(request, PrinterUpdate)
    scope = scope_of(identity)
    printer = await rpc.call(deps.devices.UpdatePrinter, _update_request(scope, printer_id, body))
    await forget_printers(deps.jobs, scope)
    label = printer.display_name or printer.name
    await record(request, identity, Change("printer.updated", printer_id, label, sent_fields(body), identity.mode))
    return JSONResponse(representations.printer(printer))


@router.get(
    "/printers/{id}/printjobs",
    **documented(200, PrintJobPage, 404, links={"GetPrintJob": link("get_print_job", "$response.body#/data/0/id")}),
)
async def list_printer_jobs(
    request: Request, id: str, identity: ReadKey, query: Annotated[PagingQuery, Query()]
) -> JSONResponse:
    """List a printer's jobs

    The print jobs sent to one printer, newest first by default.

    Scope: `read`.

    Errors: `404 not_found` when the printer is not in the caller's organization and mode.

    Example: `GET /v1/printers/{id}/printjobs?limit=20`.
    """
    deps: GatewayDeps = request.app.state.deps
    scope = scope_of(identity)
    printer_id = path_id(id, "printer")
    page_req = page_request(query)
    # Jobs would answer an empty list for a printer it does not know; the spec wants 404 for a
    # printer outside the caller's organization and mode, which only Devices can tell.
    await rpc.call(deps.devices.GetPrinter, devices_pb2.GetPrinterRequest(scope=scope, id=printer_id))
    page = await rpc.call(
        deps.jobs.ListJobs,
        jobs_pb2.ListJobsRequest(scope=scope, page=page_req, filters=jobs_pb2.JobFilters(printer_id=printer_id)),
    )
    return JSONResponse(representations.page(page.items, page.page, representations.print_job))
