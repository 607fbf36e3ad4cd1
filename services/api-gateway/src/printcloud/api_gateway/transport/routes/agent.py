from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import MISSING
from starlette.requests import Request

from printcloud.api_gateway.domain.audit import Change
from printcloud.api_gateway.transport.audit_trail import record
from printcloud.api_gateway.transport.auth import AdminKey
from printcloud.api_gateway.transport.bodies import parse_json_body
from printcloud.api_gateway.transport.deps import GatewayDeps
from printcloud.api_gateway.transport.mapping import scope_of
from printcloud.api_gateway.transport.openapi import documented, json_body
from printcloud.api_gateway.transport.responses import Enrollment
from printcloud.api_gateway.transport.routes.computers import computer_links
from printcloud.api_gateway.transport.schemas import ComputerEnrollment, NoQuery
from printcloud.core import rpc
from printcloud.v1 import devices_pb2

router = APIRouter(prefix="/v1", tags=["agents"])


@router.post(
    "/agent/enroll",
    openapi_extra=json_body(ComputerEnrollment),
    **documented(201, Enrollment, 413, links=computer_links("$response.body#/computerId")),
)
async def enroll_computer(request: Request, identity: AdminKey, _: Annotated[NoQuery, Query()]) -> dict[str, Any]:
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
    return {
        "computerId": enrolled.computer.id,
        "credential": enrolled.agent_credential,
        "agentGatewayUrl": deps.agent_gateway_public_url,
    }
