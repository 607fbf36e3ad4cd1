"""What the SDK raises: an `ApiError` subclass per kind of answer, carrying the API's `code`,
`message` and `request_id`; `ApiConnectionError` when no answer came."""

from __future__ import annotations

from typing import Any

import httpx


class PrintCloudError(Exception):
    """Everything the SDK raises."""


class ApiError(PrintCloudError):
    """An error answer of the API, after the retries the spec allows."""

    def __init__(self, status: int, code: str, message: str, request_id: str, response: httpx.Response) -> None:
        super().__init__(f"{status} {code}: {message} (request {request_id})")
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.response = response

    @property
    def upgrade_url(self) -> str | None:
        """Where the plan is changed, on `quota_exceeded`."""
        error: dict[str, Any] = _error_body(self.response)
        url = error.get("upgrade_url")
        return url if isinstance(url, str) else None


class InvalidRequestError(ApiError):
    """400: the request itself is wrong (a field, a value, an option, a parameter)."""


class AuthenticationError(ApiError):
    """401: no key, or an unknown or revoked one."""


class QuotaExceededError(ApiError):
    """402: the plan's live prints for the month are used up (`upgrade_url`)."""


class PermissionDeniedError(ApiError):
    """403: the key lacks the scope (`insufficient_scope`) or the user the role (`forbidden`)."""


class NotFoundError(ApiError):
    """404: no such resource in the key's organization and mode."""


class ConflictError(ApiError):
    """409: `not_cancellable`, `endpoint_disabled`, `idempotency_in_progress`, `conflict`."""


class GoneError(ApiError):
    """410: a reprint whose stored file is gone (`file_expired`)."""


class ContentTooLargeError(ApiError):
    """413: a document over 25 MB."""


class UnprocessableError(ApiError):
    """422: well formed but refused: `invalid_content`, `printer_disabled`, `mode_mismatch`, ..."""


class RateLimitError(ApiError):
    """429 after every retry: `rate_limited` or `test_mode_daily_cap`."""


class ServerError(ApiError):
    """5xx after every retry."""


class ApiConnectionError(PrintCloudError):
    """No answer: the connection failed or timed out, after every retry."""


class WebhookVerificationError(PrintCloudError):
    """A webhook request whose signature or timestamp does not hold: do not process it."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    402: QuotaExceededError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: ContentTooLargeError,
    422: UnprocessableError,
    429: RateLimitError,
}


def _error_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else {}


def error_from(response: httpx.Response) -> ApiError:
    """The exception for an error answer: the envelope's fields, or the status alone when a proxy
    in between answered something else."""
    error = _error_body(response)
    kind = ServerError if response.status_code >= 500 else _BY_STATUS.get(response.status_code, ApiError)
    return kind(
        response.status_code,
        str(error.get("code", "unknown")),
        str(error.get("message", response.reason_phrase)),
        str(error.get("request_id", response.headers.get("x-request-id", ""))),
        response,
    )


class PrinterLookupError(PrintCloudError, LookupError):
    """No printer, or more than one, has the name given."""
