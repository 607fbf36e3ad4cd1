"""The spec's error envelope, `{"error": {"code", "message", "request_id"}}`, and the headers every
answer of a public port carries: the one definition both gateways render their errors from,
whether the application, the WebSocket protocol or the HTTP protocol itself answers.

Security headers: `nosniff`, no framing, no referrer beyond the origin, and a Content-Security-
Policy. HTML pages (the dashboard) get `PAGE_POLICY`, which allows the page's own scripts, styles
and images and nothing inline; every other answer (JSON, files, errors) `NO_CONTENT_POLICY`, which
allows nothing, so that a body a browser is tricked into rendering can run nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse

from printcloud.contracts.errors import ApiError
from printcloud.core.telemetry.request_ids import REQUEST_ID_HEADER, new_request_id, request_id_var

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
NO_CONTENT_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
CONTENT_SECURITY_POLICY = "content-security-policy"
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    # Not `no-referrer`: with it, browsers send `Origin: null` on the dashboard's own form posts,
    # which the dashboard's origin check needs.
    ("referrer-policy", "same-origin"),
)


def add_security_headers(headers: MutableHeaders) -> None:
    """Adds each security header the answer does not set itself, the policy by its content type."""
    html = headers.get("content-type", "").startswith("text/html")
    for name, value in (*SECURITY_HEADERS, (CONTENT_SECURITY_POLICY, PAGE_POLICY if html else NO_CONTENT_POLICY)):
        headers.setdefault(name, value)


def error_body(error: ApiError, request_id: str, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": error.code, "message": error.message, "request_id": request_id, **(extra or {})}}


def error_head(request_id: str) -> list[tuple[str, str]]:
    """The headers of an error answer besides its length: JSON, its request id, the security headers."""
    return [
        ("content-type", "application/json"),
        (REQUEST_ID_HEADER, request_id),
        *SECURITY_HEADERS,
        (CONTENT_SECURITY_POLICY, NO_CONTENT_POLICY),
    ]


def error_bytes(error: ApiError, request_id: str) -> bytes:
    return json.dumps(error_body(error, request_id)).encode()


def error_response(
    error: ApiError,
    headers: Mapping[str, str] | None = None,
    *,
    request_id: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> JSONResponse:
    """The envelope as a response, under the request id of the request being served unless given
    one (a WebSocket handshake is served outside the HTTP middleware that sets it)."""
    rid = request_id or request_id_var.get() or new_request_id()
    response = JSONResponse(error_body(error, rid, extra), status_code=error.status, headers=headers)
    for name, value in error_head(rid)[1:]:
        response.headers.setdefault(name, value)
    return response
