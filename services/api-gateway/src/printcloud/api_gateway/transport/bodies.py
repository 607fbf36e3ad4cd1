"""Reading JSON request bodies by hand, after authentication.

FastAPI would parse a declared body before running dependencies, answering 400 to a caller who
has not even authenticated; reading it in the handler keeps the order 401, 403, then 400.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from printcloud.api_gateway.transport.validation import invalid_request
from printcloud.core.errors import ApiError

Model = TypeVar("Model", bound=BaseModel)

# 25 MB of document as base64 is about 35 MB of JSON; beyond this nothing valid can follow.
MAX_BODY_BYTES = 40 * 1024 * 1024


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _declared_length(request: Request) -> int:
    declared = request.headers.get("content-length", "")
    size = int(declared) if declared.isdigit() else 0
    if size > MAX_BODY_BYTES:
        raise ApiError("content_too_large", "The request body is larger than 40 MB.")
    return size


async def _read_limited(request: Request) -> bytearray:
    # One buffer of the declared size, filled in place: growing it chunk by chunk lets the
    # allocator copy it on the way, briefly holding a 35 MB body twice.
    raw = bytearray(_declared_length(request))
    filled = 0
    async for chunk in request.stream():
        if filled + len(chunk) > MAX_BODY_BYTES:
            raise ApiError("content_too_large", "The request body is larger than 40 MB.")
        raw[filled : filled + len(chunk)] = chunk  # grows only past a wrong or missing length
        filled += len(chunk)
    del raw[filled:]
    return raw


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; `400 invalid_request` for anything else."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise ApiError("invalid_request", "The body must be JSON sent with `Content-Type: application/json`.")
    raw = await _read_limited(request)
    try:
        # Decoded here rather than by `json.loads(raw)`, so that the bytes are freed before parsing
        # copies the document's text out: two copies of a 35 MB body at a time, never three.
        text = raw.decode("utf-8-sig")  # RFC 8259 allows ignoring a byte order mark
        del raw
        data = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError are both ValueErrors
        raise ApiError("invalid_request", f"The body is not valid JSON: {exc}.") from None
    if not isinstance(data, dict):
        raise ApiError("invalid_request", "The body must be a JSON object.")
    return data


async def parse_json_body(request: Request, model: type[Model]) -> Model:
    return validate_body(await read_json_object(request), model)


def validate_body(data: dict[str, Any], model: type[Model]) -> Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors(include_url=False, include_input=False), "field") from None
