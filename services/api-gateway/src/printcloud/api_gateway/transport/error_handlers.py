"""Every error the framework or a handler raises becomes the spec's envelope, never `{"detail": ...}`."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Match

from printcloud.api_gateway.transport.envelope import error_response
from printcloud.api_gateway.transport.validation import invalid_request
from printcloud.contracts.errors import METHOD_NOT_ALLOWED, NO_ENDPOINT, STATUS_BY_CODE, ApiError

# For framework errors that carry only a status; the first code listed for a status wins.
_CODE_BY_STATUS = {status: code for code, status in reversed(STATUS_BY_CODE.items())}
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _probe(request: Request, path: str, method: str) -> dict[str, str]:
    """A fresh scope for asking the router about a path, rather than reading route internals,
    which FastAPI reorganises between versions."""
    return {"type": "http", "path": path, "root_path": request.scope.get("root_path", ""), "method": method}


def _allowed_methods(request: Request) -> str:
    """Every method some route accepts on this path; Starlette's own Allow names only the first route's."""
    path = request.scope["path"]
    return ", ".join(
        method
        for method in _METHODS
        if any(route.matches(_probe(request, path, method))[0] is Match.FULL for route in request.app.router.routes)
    )


def _slash_twin(request: Request) -> str | None:
    """Where a path with its trailing slash added or removed is served, as a path (with the query):
    Starlette's own redirect names the host the client sent in `Host`, which an attacker chooses."""
    path = request.scope["path"]
    if path == "/":
        return None
    twin = path.removesuffix("/") if path.endswith("/") else path + "/"
    probe = _probe(request, twin, request.method)
    if not any(route.matches(probe)[0] is not Match.NONE for route in request.app.router.routes):
        return None
    # The path as it was sent, still percent-encoded (h11 lets only visible ASCII through).
    raw = request.scope.get("raw_path", path.encode()).decode("latin-1")
    location = raw.removesuffix("/") if raw.endswith("/") else raw + "/"
    if not location.startswith("/") or location.startswith(("//", "/\\")):
        return None  # would name another host
    query = request.scope.get("query_string", b"").decode("latin-1")
    return f"{location}?{query}" if query else location


async def _api_error(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return error_response(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    # Neither answer repeats the path: nothing a client sent is echoed back.
    if exc.status_code == 404:
        twin = _slash_twin(request)
        if twin is not None:
            return RedirectResponse(twin, status_code=307)
        return error_response(NO_ENDPOINT)
    if exc.status_code == 405:
        return error_response(METHOD_NOT_ALLOWED, headers={"Allow": _allowed_methods(request)})
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
