"""Computers (spec "Computers"). Scopes: `read` for the GETs, `admin` for PATCH and DELETE.

PATCH takes `name` (rename) and `enabled` (false disables the computer and disconnects its agent;
true re-enables it, and it goes online when its agent next connects). DELETE answers `204` with
no body; the test-mode virtual computer cannot be deleted (`409 conflict`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import MISSING, Field, StrictBool, StrictStr
from starlette.requests import Request

from printcloud.api_gateway.transport.auth import AdminKey, ReadKey
from printcloud.api_gateway.transport.bodies import parse_json_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import page_envelope, page_request, path_id, scope_of
from printcloud.api_gateway.transport.schemas import NoQuery, PagingQuery, StrictBody
from printcloud.core import representations, rpc
from printcloud.v1 import devices_pb2

router = APIRouter(prefix="/v1", tags=["computers"])


class ComputerUpdate(StrictBody):
    name: Annotated[StrictStr, Field(min_length=1, max_length=255)] | MISSING = MISSING
    enabled: StrictBool | MISSING = MISSING


_UPDATE_BODY = {
    "requestBody": {"required": True, "content": {"application/json": {"schema": ComputerUpdate.model_json_schema()}}}
}


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


@router.patch("/computers/{id}", openapi_extra=_UPDATE_BODY)
async def update_computer(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    deps: GatewayDeps = request.app.state.deps
    computer_id = path_id(id, "computer")
    body = await parse_json_body(request, ComputerUpdate)
    update = devices_pb2.UpdateComputerRequest(scope=scope_of(identity), id=computer_id)
    if body.name is not MISSING:
        update.name = body.name
    if body.enabled is not MISSING:
        update.enabled = body.enabled
    return representations.computer(await rpc.call(deps.devices.UpdateComputer, update))


@router.delete("/computers/{id}", status_code=204, response_class=Response)
async def delete_computer(request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> Response:
    deps: GatewayDeps = request.app.state.deps
    await rpc.call(
        deps.devices.DeleteComputer,
        devices_pb2.DeleteComputerRequest(scope=scope_of(identity), id=path_id(id, "computer")),
    )
    return Response(status_code=204)
