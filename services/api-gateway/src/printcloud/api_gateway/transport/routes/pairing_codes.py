"""Pairing codes (docs/api.md, "Pairing codes"): an owner or an `admin` key makes one for the
key's mode, sees its uses and the computers it enrolled, and revokes it. Every operation needs
`admin`: even without the code, a list says where an organization's computers enrol from.

DELETE revokes: the code stops enrolling at once and stays listed (`state` `revoked`) with the
computers it enrolled, so the record of where it went survives it. Making and revoking a code
are recorded in the audit log, naming the code by its hint.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from pydantic import MISSING
from starlette.requests import Request

from printcloud.api_gateway.domain.audit import Change
from printcloud.api_gateway.transport.audit_trail import record
from printcloud.api_gateway.transport.auth import AdminKey
from printcloud.api_gateway.transport.bodies import parse_json_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import page_request, path_id, scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body, link
from printcloud.api_gateway.transport.schemas import NoQuery, PagingQuery
from printcloud.contracts import representations
from printcloud.contracts.field_names import public_name
from printcloud.contracts.pairing import (
    CreatedPairingCode,
    PairingCode,
    PairingCodeEnrollment,
    PairingCodeEnrollmentPage,
    PairingCodePage,
)
from printcloud.contracts.requests import PairingCodeCreate
from printcloud.core import rpc
from printcloud.v1 import devices_pb2, devices_pb2_grpc

router = APIRouter(prefix="/v1", tags=["agents"])

PAIRING_CODE = "pairing code"
# A created code's audit details name its terms as its representation does.
_MAX_USES = public_name(PairingCode, lambda code: code.maxUses)
_EXPIRES_AT = public_name(PairingCode, lambda code: code.expiresAt)
_FIRST_COMPUTER = f"$response.body#/data/0/{public_name(PairingCodeEnrollment, lambda e: e.computerId)}"


def _code_links(source: str) -> dict[str, dict[str, Any]]:
    return {
        "GetPairingCode": link("get_pairing_code", source),
        "ListPairingCodeEnrollments": link("list_pairing_code_enrollments", source),
        "RevokePairingCode": link("revoke_pairing_code", source),
    }


def _devices(request: Request) -> devices_pb2_grpc.DevicesStub:
    deps: GatewayDeps = request.app.state.deps
    return deps.devices


def _audit_name(code: devices_pb2.PairingCode) -> str:
    """How the audit log names a code: what it is for and its hint, never the code itself."""
    hint = f"{code.hint}-…"
    return f"{code.description} ({hint})" if code.description else hint


def _ref(identity: AdminKey, id: str) -> devices_pb2.PairingCodeRef:
    return devices_pb2.PairingCodeRef(scope=scope_of(identity), id=path_id(id, PAIRING_CODE))


@router.post(
    "/agent/pairing-codes",
    openapi_extra=json_body(PairingCodeCreate),
    **documented(201, CreatedPairingCode, 409, 413, links=_code_links("$response.body#/id")),
)
async def create_pairing_code(request: Request, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Make a pairing code

    A code that enrols up to `maxUses` computers (default 1, at most 1,000) in the key's mode until
    it expires (`expireAfter` seconds, default 24 hours, at most 7 days), with `printcloud-agent
    enroll --code CODE` and no API key. The code is in this answer only; later answers show its
    first group (`hint`).

    Scope: `admin`.

    Errors: `400 invalid_request` for an out-of-range `maxUses` or `expireAfter` or an unknown
    field; `409 conflict` when the organization already has 100 codes that can still enrol in this mode.

    Example: `POST /v1/agent/pairing-codes` with `{"description": "Shop rollout", "maxUses": 500}`.
    """
    body = await parse_json_body(request, PairingCodeCreate)
    create = devices_pb2.CreatePairingCodeRequest(
        scope=scope_of(identity), description="" if body.description is MISSING else body.description
    )
    if body.maxUses is not MISSING:
        create.max_uses = body.maxUses
    if body.expireAfter is not MISSING:
        create.expire_after_seconds = body.expireAfter
    created = await rpc.call(_devices(request).CreatePairingCode, create)
    code = created.pairing_code
    terms = {_MAX_USES: code.max_uses, _EXPIRES_AT: code.expires_at}
    await record(request, identity, Change("pairing_code.created", code.id, _audit_name(code), terms, identity.mode))
    return {**representations.pairing_code(code), "code": created.code}


@router.get(
    "/agent/pairing-codes",
    **documented(200, PairingCodePage, links=_code_links("$response.body#/data/0/id")),
)
async def list_pairing_codes(
    request: Request, identity: AdminKey, query: Annotated[PagingQuery, Query()]
) -> dict[str, Any]:
    """List pairing codes

    Every code of the key's mode, whatever its state (`active`, `expired`, `used_up`, `revoked`),
    with its uses and the uses left; newest first by default. The codes themselves are never shown
    again, only their first group (`hint`).

    Scope: `admin`.

    Errors: `400 invalid_request` for a bad paging parameter.

    Example: `GET /v1/agent/pairing-codes?limit=10`.
    """
    page = await rpc.call(
        _devices(request).ListPairingCodes,
        devices_pb2.ListPairingCodesRequest(scope=scope_of(identity), page=page_request(query)),
    )
    return representations.page(page.items, page.page, representations.pairing_code)


@router.get(
    "/agent/pairing-codes/{id}",
    **documented(200, PairingCode, 404, links=_code_links("$response.body#/id")),
)
async def get_pairing_code(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> dict[str, Any]:
    """Get a pairing code

    One code of the key's mode: its state, uses, uses left and expiry (never the code itself).

    Scope: `admin`.

    Errors: `404 not_found` for a code of another organization or mode, or none at all.

    Example: `GET /v1/agent/pairing-codes/0193f4c2-...`.
    """
    return representations.pairing_code(await rpc.call(_devices(request).GetPairingCode, _ref(identity, id)))


@router.get(
    "/agent/pairing-codes/{id}/enrollments",
    **documented(200, PairingCodeEnrollmentPage, 404, links={"GetComputer": link("get_computer", _FIRST_COMPUTER)}),
)
async def list_pairing_code_enrollments(
    request: Request, id: str, identity: AdminKey, query: Annotated[PagingQuery, Query()]
) -> dict[str, Any]:
    """List the computers a pairing code enrolled

    Where a code went: each computer it enrolled, with the name and host name it enrolled with and
    the address it enrolled from, newest first by default. A computer deleted since stays listed.

    Scope: `admin`.

    Errors: `404 not_found` for a code of another organization or mode; `400 invalid_request` for a
    bad paging parameter.

    Example: `GET /v1/agent/pairing-codes/0193f4c2-.../enrollments`.
    """
    page = await rpc.call(
        _devices(request).ListPairingCodeEnrollments,
        devices_pb2.ListPairingCodeEnrollmentsRequest(
            scope=scope_of(identity), id=path_id(id, PAIRING_CODE), page=page_request(query)
        ),
    )
    return representations.page(page.items, page.page, representations.pairing_code_enrollment)


@router.delete(
    "/agent/pairing-codes/{id}",
    response_class=Response,
    **documented(204, None, 404, description="Revoked (again, for a code revoked before)"),
)
async def revoke_pairing_code(
    request: Request, id: str, identity: AdminKey, _: Annotated[NoQuery, Query()]
) -> Response:
    """Revoke a pairing code

    The code enrols nothing from now on; computers it enrolled keep their credentials (delete or
    disable those computers to cut them off). The code stays listed, `revoked`, with its enrolments.
    Revoking a revoked code answers 204 again.

    Scope: `admin`.

    Errors: `404 not_found` for a code of another organization or mode.

    Example: `DELETE /v1/agent/pairing-codes/0193f4c2-...`.
    """
    ref = _ref(identity, id)
    # Revoking again changes nothing, so it is not recorded again.
    before = await rpc.call(_devices(request).GetPairingCode, ref)
    code = await rpc.call(_devices(request).RevokePairingCode, ref)
    if not before.HasField("revoked_at"):
        change = Change("pairing_code.revoked", code.id, _audit_name(code), {"uses": code.uses}, identity.mode)
        await record(request, identity, change)
    return Response(status_code=204)
