"""The one definition of the public error codes.

Services raise `ApiError`; gRPC carries it to the gateway (see `printcloud.core.rpc`), which
renders the spec's envelope. A code's HTTP status lives here and nowhere else.
"""

from __future__ import annotations

from typing import Any

STATUS_BY_CODE: dict[str, int] = {
    "invalid_request": 400,
    "unauthorized": 401,
    "insufficient_scope": 403,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "request_timeout": 408,
    "idempotency_in_progress": 409,
    "not_cancellable": 409,
    "endpoint_disabled": 409,
    "conflict": 409,
    # Not 429: the spec tells clients to retry every 429, and no retry helps before the next month
    # or an upgrade. 402 is a 4xx clients do not retry, and says what lifts it (docs/api.md).
    "quota_exceeded": 402,
    "file_expired": 410,
    "content_too_large": 413,
    "headers_too_large": 431,
    "invalid_content": 422,
    "invalid_content_url": 422,
    "printer_disabled": 422,
    "mode_mismatch": 422,
    "idempotency_key_reused": 422,
    "invalid_url": 422,
    "rate_limited": 429,
    "test_mode_daily_cap": 429,
    "internal_error": 500,
    "service_unavailable": 503,
    "storage_unavailable": 503,
}


class ApiError(Exception):
    """An error with a stable public code. `details` is extra, non-secret context for clients."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        if code not in STATUS_BY_CODE:
            raise ValueError(f"unknown error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    @property
    def status(self) -> int:
        return STATUS_BY_CODE[self.code]

    def __repr__(self) -> str:
        return f"ApiError({self.code!r}, {self.message!r})"


def not_found(what: str = "resource") -> ApiError:
    return ApiError("not_found", f"No such {what}.")


def invalid(message: str) -> ApiError:
    return ApiError("invalid_request", message)


# The answers to an unknown path and to a method a path does not take. Neither repeats the path or
# the method: no answer echoes what a client sent.
NO_ENDPOINT = ApiError("not_found", "No endpoint at this path.")
METHOD_NOT_ALLOWED = ApiError("method_not_allowed", "This method is not allowed here; `Allow` lists those that are.")
