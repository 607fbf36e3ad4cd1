from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.requests import Request

from printcloud.api_gateway.transport.auth import ReadKey
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import page_envelope, page_request, path_id, scope_of
from printcloud.api_gateway.transport.schemas import NoQuery, PagingQuery
from printcloud.core import representations, rpc
from printcloud.v1 import devices_pb2, jobs_pb2

router = APIRouter(prefix="/v1", tags=["printers"])


@router.get("/printers")
async def list_printers(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    page = await rpc.call(
        deps.devices.ListPrinters,
        devices_pb2.ListPrintersRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return page_envelope(page.items, page.page, representations.printer)


@router.get("/printers/{id}")
async def get_printer(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    printer = await rpc.call(
        deps.devices.GetPrinter,
        devices_pb2.GetPrinterRequest(scope=scope_of(identity), id=path_id(id, "printer")),
    )
    return representations.printer(printer)


@router.get("/printers/{id}/printjobs")
async def list_printer_jobs(
    request: Request, id: str, identity: ReadKey, query: Annotated[PagingQuery, Query()]
) -> dict[str, Any]:
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
    return page_envelope(page.items, page.page, representations.print_job)
