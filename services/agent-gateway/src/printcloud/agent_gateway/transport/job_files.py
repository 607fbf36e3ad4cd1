"""GET /agent/v1/jobs/{job_id}/file?token=...: a job's file, streamed from the jobs service."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from printcloud.agent_gateway.domain.file_tokens import ComputerScope, verify_token
from printcloud.agent_gateway.transport.context import GatewayContext
from printcloud.agent_gateway.transport.errors import error_response
from printcloud.core import rpc
from printcloud.core.errors import ApiError
from printcloud.v1 import common_pb2, devices_pb2, jobs_pb2

_REVOKED = ApiError("forbidden", "The download token is no longer valid: its computer was deleted or disabled.")
DISABLED = "disabled"


class JobFiles:
    def __init__(self, context: GatewayContext) -> None:
        self.context = context

    async def get(self, request: Request) -> Response:
        job_id = request.path_params["job_id"]
        token = request.query_params.get("token")
        if not token:
            return error_response(ApiError("unauthorized", "A download token is required."))
        grant = verify_token(self.context.file_token_secret, job_id, token, time.time())
        if grant is None:
            return error_response(ApiError("forbidden", "The download token is invalid or expired."))
        job_request = jobs_pb2.AgentJobRequest(computer_id=grant.computer.computer_id, job_id=grant.job_id)
        try:
            await self._check_computer_active(grant.computer)
            # Jobs decides whether the file may be served (its state rule lives there alone). The
            # first chunk is read before answering so that a refusal still gets a proper status.
            chunks = rpc.stream(self.context.jobs.ReadJobFile, job_request)
            first: jobs_pb2.FileChunk = await anext(chunks)
        except ApiError as error:
            return error_response(error)

        async def body() -> AsyncIterator[bytes]:
            yield first.data
            async for chunk in chunks:
                yield chunk.data

        return StreamingResponse(
            body(),
            media_type="application/octet-stream",
            headers={"content-length": str(first.file_size), "cache-control": "no-store"},
        )

    async def _check_computer_active(self, computer: ComputerScope) -> None:
        """A token outlives nothing: its computer must still exist, enabled, when it is used."""
        scope = common_pb2.Scope(organization_id=computer.organization_id, mode=computer.mode)
        request = devices_pb2.GetComputerRequest(scope=scope, id=computer.computer_id)
        try:
            found: devices_pb2.Computer = await rpc.call(self.context.devices.GetComputer, request)
        except ApiError as error:
            if error.status != 404:
                raise
            raise _REVOKED from None
        if found.state == DISABLED:
            raise _REVOKED
