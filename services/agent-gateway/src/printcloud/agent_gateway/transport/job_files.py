"""GET /agent/v1/jobs/{job_id}/file?token=...: a job's file, streamed from the jobs service."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from printcloud.agent_gateway.use_cases.jobs import AgentJobs
from printcloud.contracts.errors import ApiError
from printcloud.core.http.error_envelope import error_response


class JobFiles:
    def __init__(self, jobs: AgentJobs) -> None:
        self.jobs = jobs

    async def get(self, request: Request) -> Response:
        try:
            file = await self.jobs.job_file(request.path_params["job_id"], request.query_params.get("token"))
        except ApiError as error:
            return error_response(error)
        return StreamingResponse(
            file.chunks,
            media_type="application/octet-stream",
            headers={"content-length": str(file.size), "cache-control": "no-store"},
        )
