"""The router's own errors in the spec's envelope (`printcloud.core.http.error_envelope`), like every other
HTTP answer of the agent-gateway that is not a success."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from printcloud.contracts.errors import METHOD_NOT_ALLOWED, NO_ENDPOINT
from printcloud.core.http.error_envelope import error_response


async def not_found(_: Request, __: Exception) -> Response:
    return error_response(NO_ENDPOINT)


async def method_not_allowed(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error_response(METHOD_NOT_ALLOWED, headers=exc.headers)
