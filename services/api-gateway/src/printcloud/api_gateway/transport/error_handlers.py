"""Every error the framework or a handler raises becomes the spec's envelope, never `{"detail": ...}`."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match

from printcloud.api_gateway.transport.envelope import error_response
from printcloud.api_gateway.transport.validation import invalid_request
from printcloud.core.errors import STATUS_BY_CODE, ApiError

# For framework errors that carry only a status; the first code listed for a status wins.
_CODE_BY_STATUS = {status: code for code, status in reversed(STATUS_BY_CODE.items())}
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _allowed_methods(request: Request) -> str:
    """Every method some route accepts on this path; Starlette's own Allow names only the first route's.

    Probes the router with a fresh scope per method rather than reading route internals, which
    FastAPI reorganises between versions.
    """
    probe = {"type": "http", "path": request.scope["path"], "root_path": request.scope.get("root_path", "")}
    return ", ".join(
        method
        for method in _METHODS
        if any(route.matches({**probe, "method": method})[0] is Match.FULL for route in request.app.router.routes)
    )


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return error_response(ApiError("not_found", f"No endpoint {request.method} {request.url.path}."))
    if exc.status_code == 405:
        error = ApiError("method_not_allowed", f"{request.method} is not allowed on {request.url.path}.")
        return error_response(error, headers={"Allow": _allowed_methods(request)})
    code = _CODE_BY_STATUS.get(exc.status_code, "internal_error")
    return error_response(ApiError(code, str(exc.detail)), headers=exc.headers)


async def _validation_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    # FastAPI prefixes the location with where the value came from ("query", "path").
    errors = [{**error, "loc": tuple(error["loc"][1:])} for error in exc.errors()]
    return error_response(invalid_request(errors, "query parameter"))


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
