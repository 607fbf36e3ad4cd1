"""Agent enrolment: with an `admin` API key, or with a pairing code and no key at all
(docs/api.md, "Agent enrolment" and "Pairing codes"). Both answer the same `Enrollment`."""

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
from printcloud.api_gateway.transport.envelope import error_response
from printcloud.api_gateway.transport.mapping import scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body
from printcloud.api_gateway.transport.rate_limit import charge, client_principal
from printcloud.api_gateway.transport.routes.computers import computer_links
from printcloud.api_gateway.transport.schemas import CodeEnrollment, ComputerEnrollment, NoQuery
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Enrollment
from printcloud.core import rpc
from printcloud.v1 import devices_pb2

router = APIRouter(prefix="/v1", tags=["agents"])

_ENROLLED_COMPUTER = f"$response.body#/{public_name(Enrollment, lambda enrollment: enrollment.computerId)}"


def _enrollment(deps: GatewayDeps, enrolled: devices_pb2.EnrollComputerResponse) -> dict[str, Any]:
    return Enrollment(
        computerId=enrolled.computer.id,
        credential=enrolled.agent_credential,
        agentGatewayUrl=deps.agent_gateway_public_url,
    ).model_dump()


@router.post(
    "/agent/enroll",
    openapi_extra=json_body(ComputerEnrollment),
    **documented(201, Enrollment, 413, links=computer_links(_ENROLLED_COMPUTER)),
)
async def enroll_computer(request: Request, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
    """Enrol a computer's agent

    Creates a computer in the key's organization and mode and answers the credential its agent
    connects with (shown only here) and where it connects. `name` defaults to `hostname`.

    Scope: `admin`.

    Errors: `400 invalid_request` for a missing or blank `hostname`, a blank `name`, or an unknown field.

    Example: `POST /v1/agent/enroll` with `{"hostname": "frontdesk-pc", "name": "Front desk"}`.
    """
    deps: GatewayDeps = request.app.state.deps
    body = await parse_json_body(request, ComputerEnrollment)
    enrolled = await rpc.call(
        deps.devices.EnrollComputer,
        devices_pb2.EnrollComputerRequest(
            scope=scope_of(identity), name=body.hostname if body.name is MISSING else body.name, hostname=body.hostname
        ),
    )
    computer = enrolled.computer
    change = Change("computer.enrolled", computer.id, computer.name, {"hostname": computer.hostname}, identity.mode)
    await record(request, identity, change)
    return _enrollment(deps, enrolled)


@router.post(
    "/agent/pair",
    openapi_extra={**json_body(CodeEnrollment), "security": []},
    **documented(201, Enrollment, 413),
)
async def enroll_with_pairing_code(request: Request, _: Annotated[NoQuery, Query()]) -> Response | dict[str, Any]:
    """Enrol a computer with a pairing code

    No API key: the code is the credential, and it can do nothing else. It enrols one computer in
    the organization and mode it was made for, takes one of the code's uses, and answers as
    key-based enrolment does (the credential is shown only here). `name` defaults to `hostname`.

    Scope: none (the pairing code).

    Errors: `401 unauthorized` for a wrong, expired, used-up or revoked code (one and the same
    answer); `429 rate_limited` with `Retry-After` past the limits on wrong codes (by default 10 from
    one address, or 50 for codes sharing their first group, in 15 minutes); `400 invalid_request`
    for a missing code or hostname.

    Example: `POST /v1/agent/pair` with `{"code": "7K4M-9QXP-3T8D", "hostname": "shop-17"}`.
    """
    deps: GatewayDeps = request.app.state.deps
    # The rate middleware leaves requests that carry a credential to authentication, which this
    # route does not run: the client address pays here, whatever headers came along.
    await charge(request, client_principal(request.scope))
    body = await parse_json_body(request, CodeEnrollment)
    try:
        enrolled = await rpc.call(
            deps.devices.EnrollWithPairingCode,
            devices_pb2.EnrollWithPairingCodeRequest(
                code=body.code,
                name="" if body.name is MISSING else body.name,
                hostname=body.hostname,
                client_address=request.client.host if request.client else "unknown",
            ),
        )
    except ApiError as error:
        if "retry_after" not in error.details:
            raise
        return error_response(error, headers={"Retry-After": str(error.details["retry_after"])})
    return _enrollment(deps, enrolled)
