"""The one definition of the public error codes.

Services raise `ApiError`; gRPC carries it to the gateway (see `printcloud.core.rpc`), which
renders the spec's envelope. The codes and their HTTP statuses are public contract:
`printcloud.contracts.errors` holds them.
"""

from __future__ import annotations

from typing import Any

from printcloud.contracts.errors import STATUS_BY_CODE

__all__ = ["STATUS_BY_CODE", "ApiError", "invalid", "not_found"]


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
