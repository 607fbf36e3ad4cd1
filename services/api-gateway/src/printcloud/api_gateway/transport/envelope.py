"""The spec's error envelope (`printcloud.core.http.error_envelope`), the only error body the gateway ever
sends, with what the API adds to it: the challenges of a 401 and a quota's upgrade URL."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import JSONResponse

from printcloud.contracts.errors import ApiError
from printcloud.core.http import error_envelope

# RFC 9110 asks 401 responses to name the schemes that would work; both are accepted.
AUTH_CHALLENGES = ('Bearer realm="PrintCloud"', 'Basic realm="PrintCloud", charset="UTF-8"')


def error_response(error: ApiError, headers: Mapping[str, str] | None = None) -> JSONResponse:
    extra = {"upgrade_url": error.details["upgrade_url"]} if "upgrade_url" in error.details else None
    response = error_envelope.error_response(error, headers, extra=extra)
    if error.status == 401:
        for challenge in AUTH_CHALLENGES:
            response.headers.append("WWW-Authenticate", challenge)
    return response
