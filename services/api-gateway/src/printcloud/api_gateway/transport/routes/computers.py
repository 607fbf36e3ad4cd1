"""Computers (spec "Computers"). Scopes: `read` for the GETs, `admin` for PATCH and DELETE.

PATCH takes `name` (rename) and `enabled` (false disables the computer and disconnects its agent;
true re-enables it, and it goes online when its agent next connects). DELETE answers `204` with
no body; the test-mode virtual computer cannot be deleted (`409 conflict`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import MISSING
from starlette.requests import Request

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
from printcloud.contracts.requests import ComputerUpdate
from printcloud.contracts.resources import Computer, ComputerPage, PrinterPage
from printcloud.core import rpc
from printcloud.v1 import devices_pb2

router = APIRouter(prefix="/v1", tags=["computers"])


def computer_links(source: str) -> dict[str, dict[str, Any]]:
    return {
        "GetComputer": link("get_computer", source),
        "ListComputerPrinters": link("list_computer_printers", source),
        "UpdateComputer": link("update_computer", source),
        "DeleteComputer": link("delete_computer", source),
    }


@router.get("/computers", **documented(200, ComputerPage, links=computer_links("$response.body#/data/0/id")))
async def list_computers(request: Request, identity: ReadKey, query: Annotated[PagingQuery, Query()]) -> dict[str, Any]:
    """List computers

    Computers of the key's organization and mode, newest first by default (`dir=asc` for oldest
    first). Page with `limit` and `after` (the `nextCursor` of the previous page).

    Scope: `read`.

    Errors: `400 invalid_request` for a bad `limit`, an empty or malformed `after`, or an unknown parameter.

    Example: `GET /v1/computers?limit=10&dir=asc`.
    """
    deps: GatewayDeps = request.app.state.deps
    page = await rpc.call(
        deps.devices.ListComputers,
        devices_pb2.ListComputersRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return representations.page(page.items, page.page, representations.computer)


@router.get("/computers/{id}", **documented(200, Computer, 404, links=computer_links("$response.body#/id")))
async def get_computer(request: Request, id: str, identity: ReadKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Get a computer

    One computer: its agent's host, operating system and version, and its state (`online`, `offline`
    or `disabled`).

    Scope: `read`.

    Errors: `404 not_found` for an id that is not a computer of this organization and mode.

    Example: `GET /v1/computers/{id}`.
    """
    deps: GatewayDeps = request.app.state.deps
    computer = await rpc.call(
        deps.devices.GetComputer,
        devices_pb2.GetComputerRequest(scope=scope_of(identity), id=path_id(id, "computer")),
    )
    return representations.computer(computer)


@router.get(
    "/computers/{id}/printers",
    **documented(200, PrinterPage, 404, links={"GetPrinter": link("get_printer", "$response.body#/data/0/id")}),
)
async def list_computer_printers(
    request: Request, id: str, identity: ReadKey, query: Annotated[PagingQuery, Query()]
) -> Response:
    """List a computer's printers

    The printers the computer's agent reports, paged like every list.

    Scope: `read`.

    Errors: `404 not_found` when the computer is not in the caller's organization and mode.

    Example: `GET /v1/computers/{id}/printers?limit=50`.
    """
    deps: GatewayDeps = request.app.state.deps
    # Devices answers 404 itself when the computer is outside the caller's scope.
    page = await rpc.call(
        deps.devices.ListPrinters,
        devices_pb2.ListPrintersRequest(
            scope=scope_of(identity), page=page_request(query), computer_id=path_id(id, "computer"), rendered=True
        ),
    )
    return forwarded(page.representation)


@router.patch(
    "/computers/{id}",
    openapi_extra=json_body(ComputerUpdate),
    **documented(200, Computer, 404, 413, links=computer_links("$response.body#/id")),
)
async def update_computer(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    """Rename, disable or re-enable a computer

    `name` renames it (surrounding blanks are trimmed). `enabled: false` disables it: its agent is
    disconnected at once and refused until it is re-enabled; its printers go offline and jobs for them
    wait in `queued`. `enabled: true` re-enables it; it goes online when its agent next connects.

    Scope: `admin`.

    Errors: `400 invalid_request` for an unknown field, a blank or over-long name, or a value of the
    wrong type; `404 not_found`.

    Example: `PATCH /v1/computers/{id}` with `{"name": "Front desk"}`.
    """
    deps: GatewayDeps = request.app.state.deps
    computer_id = path_id(id, "computer")
    body = await parse_json_body(request, ComputerUpdate)
    update = devices_pb2.UpdateComputerRequest(scope=scope_of(identity), id=computer_id)
    if body.name is not MISSING:
        update.name = body.name
    if body.enabled is not MISSING:
        update.enabled = body.enabled
    computer = await rpc.call(deps.devices.UpdateComputer, update)
    change = Change("computer.updated", computer_id, computer.name, sent_fields(body), identity.mode)
    await record(request, identity, change)
    return representations.computer(computer)


@router.delete(
    "/computers/{id}",
    response_class=Response,
    **documented(204, None, 404, 409, description="Deleted; the test-mode virtual computer answers 409"),
)
async def delete_computer(request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> Response:
    """Delete a computer

    Deletes the computer and its printers, revokes its agent's credentials and disconnects the agent.
    Jobs already queued for it expire at their `expiresAt`. Answers `204` with no body.

    Scope: `admin`.

    Errors: `404 not_found`; `409 conflict` for the test-mode virtual computer, which cannot be deleted.

    Example: `DELETE /v1/computers/{id}`.
    """
    deps: GatewayDeps = request.app.state.deps
    computer_id = path_id(id, "computer")
    # Its name, for the audit log, while it still has one.
    computer = await rpc.call(
        deps.devices.GetComputer, devices_pb2.GetComputerRequest(scope=scope_of(identity), id=computer_id)
    )
    await rpc.call(
        deps.devices.DeleteComputer, devices_pb2.DeleteComputerRequest(scope=scope_of(identity), id=computer_id)
    )
    await forget_printers(deps.jobs, scope_of(identity))
    await record(request, identity, Change("computer.deleted", computer_id, computer.name, mode=identity.mode))
    return Response(status_code=204)
