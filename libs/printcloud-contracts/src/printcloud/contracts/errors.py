"""The error envelope, every public error code with its HTTP status, and `ApiError`, the exception
that carries one (the one definition of each).

Services raise `ApiError`; gRPC carries it to the gateway (`printcloud.core.rpc`), which renders
the envelope with the code and status the service chose.
"""

from __future__ import annotations

from enum import StrEnum, auto
from typing import Any, TypeVar

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from printcloud.contracts.base import Contract


class ErrorCode(StrEnum):
    """Stable, machine-readable error codes."""

    invalid_request = auto()
    unauthorized = auto()
    insufficient_scope = auto()
    forbidden = auto()
    not_found = auto()
    method_not_allowed = auto()
    request_timeout = auto()
    idempotency_in_progress = auto()
    not_cancellable = auto()
    endpoint_disabled = auto()
    conflict = auto()
    quota_exceeded = auto()
    file_expired = auto()
    content_too_large = auto()
    headers_too_large = auto()
    invalid_content = auto()
    invalid_content_url = auto()
    printer_disabled = auto()
    mode_mismatch = auto()
    idempotency_key_reused = auto()
    invalid_url = auto()
    rate_limited = auto()
    test_mode_daily_cap = auto()
    internal_error = auto()
    service_unavailable = auto()
    storage_unavailable = auto()


STATUS_BY_CODE: dict[str, int] = {
    ErrorCode.invalid_request: 400,
    ErrorCode.unauthorized: 401,
    ErrorCode.insufficient_scope: 403,
    ErrorCode.forbidden: 403,
    ErrorCode.not_found: 404,
    ErrorCode.method_not_allowed: 405,
    ErrorCode.request_timeout: 408,
    ErrorCode.idempotency_in_progress: 409,
    ErrorCode.not_cancellable: 409,
    ErrorCode.endpoint_disabled: 409,
    ErrorCode.conflict: 409,
    # Not 429: the spec tells clients to retry every 429, and no retry helps before the next month
    # or an upgrade. 402 is a 4xx clients do not retry, and says what lifts it (docs/api.md).
    ErrorCode.quota_exceeded: 402,
    ErrorCode.file_expired: 410,
    ErrorCode.content_too_large: 413,
    ErrorCode.headers_too_large: 431,
    ErrorCode.invalid_content: 422,
    ErrorCode.invalid_content_url: 422,
    ErrorCode.printer_disabled: 422,
    ErrorCode.mode_mismatch: 422,
    ErrorCode.idempotency_key_reused: 422,
    ErrorCode.invalid_url: 422,
    ErrorCode.rate_limited: 429,
    ErrorCode.test_mode_daily_cap: 429,
    ErrorCode.internal_error: 500,
    ErrorCode.service_unavailable: 503,
    ErrorCode.storage_unavailable: 503,
}


class ErrorDetail(Contract):
    code: ErrorCode
    message: str = Field(description="For humans; may change")
    request_id: str = Field(description="Equals the `X-Request-Id` header")
    # Absent rather than null on every other code.
    upgrade_url: str | SkipJsonSchema[None] = Field(
        None, json_schema_extra={"format": "uri"}, description="Only on `quota_exceeded`: where the plan is changed"
    )


class Error(Contract):
    """Every error answer, whatever its status."""

    error: ErrorDetail


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


Found = TypeVar("Found")


def found(row: Found | None, what: str) -> Found:
    """`row`, or `404 not_found` naming `what` when the lookup found nothing."""
    if row is None:
        raise not_found(what)
    return row


def invalid(message: str) -> ApiError:
    return ApiError("invalid_request", message)


# The answers to an unknown path and to a method a path does not take. Neither repeats the path or
# the method: no answer echoes what a client sent.
NO_ENDPOINT = ApiError("not_found", "No endpoint at this path.")
METHOD_NOT_ALLOWED = ApiError("method_not_allowed", "This method is not allowed here; `Allow` lists those that are.")
