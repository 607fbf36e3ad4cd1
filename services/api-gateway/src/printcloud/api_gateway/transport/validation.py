"""Turns pydantic's validation errors into one `invalid_request` message that names the field."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from printcloud.contracts.errors import ApiError


def field_name(loc: Sequence[Any]) -> str:
    return ".".join(str(part) for part in loc) or "body"


def invalid_request(errors: Sequence[Any], what: str) -> ApiError:
    """`what` is "field" for bodies and "query parameter" for query strings."""
    first = errors[0]
    name = field_name(first["loc"])
    if first["type"] == "extra_forbidden":
        return ApiError("invalid_request", f"Unknown {what} `{name}`.")
    if first["type"] == "missing":
        return ApiError("invalid_request", f"Missing required {what} `{name}`.")
    message = str(first["msg"]).removeprefix("Value error, ")
    return ApiError("invalid_request", f"Invalid {what} `{name}`: {message}.")
