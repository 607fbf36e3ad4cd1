"""The spec's error envelope, for every HTTP answer of the agent-gateway that is not a success."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from printcloud.core.errors import ApiError


def error_response(error: ApiError, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": error.code, "message": error.message}}, status_code=error.status, headers=headers
    )


async def not_found(request: Request, _: Exception) -> Response:
    return error_response(ApiError("not_found", f"No endpoint {request.method} {request.url.path}."))


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    error = ApiError("method_not_allowed", f"{request.method} is not allowed on {request.url.path}.")
    return error_response(error, headers=exc.headers)
