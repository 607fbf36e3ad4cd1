"""The spec's error envelope, the only error body the gateway ever sends."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import JSONResponse

from printcloud.core.errors import ApiError
from printcloud.core.telemetry import request_id_var

# RFC 9110 asks 401 responses to name the schemes that would work; both are accepted.
AUTH_CHALLENGES = ('Bearer realm="PrintCloud"', 'Basic realm="PrintCloud", charset="UTF-8"')


def error_response(error: ApiError, headers: Mapping[str, str] | None = None) -> JSONResponse:
    body: dict[str, str | None] = {"code": error.code, "message": error.message, "request_id": request_id_var.get()}
    if "upgrade_url" in error.details:
        body["upgrade_url"] = error.details["upgrade_url"]
    response = JSONResponse({"error": body}, status_code=error.status, headers=headers)
    if error.status == 401:
        for challenge in AUTH_CHALLENGES:
            response.headers.append("WWW-Authenticate", challenge)
    return response
