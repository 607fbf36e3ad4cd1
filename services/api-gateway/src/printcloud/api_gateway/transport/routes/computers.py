from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.requests import Request

from printcloud.api_gateway.transport.auth import ReadKey
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import page_envelope, page_request, path_id, scope_of
from printcloud.api_gateway.transport.schemas import NoQuery, PagingQuery
from printcloud.core import representations, rpc
from printcloud.v1 import devices_pb2

router = APIRouter(prefix="/v1", tags=["computers"])


@router.get("/computers")
async def list_computers(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    page = await rpc.call(
        deps.devices.ListComputers,
        devices_pb2.ListComputersRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return page_envelope(page.items, page.page, representations.computer)


@router.get("/computers/{id}")
async def get_computer(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    computer = await rpc.call(
        deps.devices.GetComputer,
        devices_pb2.GetComputerRequest(scope=scope_of(identity), id=path_id(id, "computer")),
    )
    return representations.computer(computer)


@router.get("/computers/{id}/printers")
async def list_computer_printers(
    request: Request, id: str, identity: ReadKey, query: Annotated[PagingQuery, Query()]
) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    # Devices answers 404 itself when the computer is outside the caller's scope.
    page = await rpc.call(
        deps.devices.ListPrinters,
        devices_pb2.ListPrintersRequest(
            scope=scope_of(identity), page=page_request(query), computer_id=path_id(id, "computer")
        ),
    )
    return page_envelope(page.items, page.page, representations.printer)
