"""Reading JSON request bodies by hand, after authentication.

FastAPI would parse a declared body before running dependencies, answering 400 to a caller who
has not even authenticated; reading it in the handler keeps the order 401, 403, then 400.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, Request

from printcloud.api_gateway.transport.set_aside import MIN_SET_ASIDE_CHARS, set_aside_long_string
from printcloud.api_gateway.transport.validation import invalid_request
from printcloud.contracts.errors import ApiError
from printcloud.core.http import bounded_json
from printcloud.core.storable_text import PROBLEM, first_unstorable

Model = TypeVar("Model", bound=BaseModel)

# 25 MB of document as base64 is about 35 MB of JSON; beyond this nothing valid can follow.
MAX_BODY_BYTES = 40 * 1024 * 1024
# Bodies past this size take one of a few slots per process while they are read and parsed, so
# that the memory many concurrent uploads hold is bounded, whatever they declare.
LARGE_BODY_BYTES = 1024 * 1024
MAX_CONCURRENT_LARGE_BODIES = 4
TOO_LARGE = "The request body is larger than 40 MB."


class _LargeBodySlots:
    """A count, not a semaphore: a request that finds no slot is refused at once (503, retried by
    clients with backoff) rather than left holding its connection and buffer while it waits."""

    def __init__(self, slots: int) -> None:
        self.free = slots

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        if self.free <= 0:
            raise ApiError("service_unavailable", "Too many large requests at once; retry shortly.")
        self.free -= 1
        try:
            yield
        finally:
            self.free += 1


LARGE_BODIES = _LargeBodySlots(MAX_CONCURRENT_LARGE_BODIES)


def _declared_length(request: Request) -> int | None:
    declared = request.headers.get("content-length", "")
    if not declared.isdigit():
        return None
    if len(declared) > 12 or int(declared) > MAX_BODY_BYTES:
        raise ApiError("content_too_large", TOO_LARGE)
    return int(declared)


async def _read_limited(request: Request, stack: contextlib.ExitStack) -> bytearray:
    """The body, grown as its bytes arrive (never from what the client declares it will send);
    a large one enters `stack` holding a slot."""
    declared = _declared_length(request)
    holding = declared is not None and declared >= LARGE_BODY_BYTES
    if holding:
        stack.enter_context(LARGE_BODIES.held())
    # Grown in place: a large buffer is resized by remapping its pages, so the body is never held
    # twice, as it would be by joining a list of chunks.
    body = bytearray()
    try:
        async for chunk in request.stream():
            if len(body) + len(chunk) >= LARGE_BODY_BYTES and not holding:
                stack.enter_context(LARGE_BODIES.held())
                holding = True
            if len(body) + len(chunk) > MAX_BODY_BYTES:
                raise ApiError("content_too_large", TOO_LARGE)
            body += chunk
    except ClientDisconnect:
        # Nobody reads this answer; it is an error of the request, not of the service.
        raise ApiError("invalid_request", "The client closed the connection before the body ended.") from None
    return body


def _parse(body: bytes | bytearray) -> object:
    try:
        # Decoded here rather than by the parser (which would do the same) to name the error.
        text = body.decode("utf-8-sig")  # RFC 8259 allows ignoring a byte order mark
    except UnicodeDecodeError:
        raise ApiError("invalid_request", "The body is not valid JSON: it is not UTF-8.") from None
    try:
        return bounded_json.loads(text)
    except bounded_json.JsonRefused as refused:
        raise ApiError("invalid_request", f"The body is not valid JSON: {refused}.") from None


def _checked_object(data: object) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ApiError("invalid_request", "The body must be a JSON object.")
    unstorable = first_unstorable(data)
    if unstorable is not None:
        raise ApiError("invalid_request", f"`{unstorable}` {PROBLEM}.")
    return data


def _check_media_type(request: Request) -> None:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != "application/json":
        raise ApiError("invalid_request", "The body must be JSON sent with `Content-Type: application/json`.")


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; `400 invalid_request` for anything else."""
    _check_media_type(request)
    with contextlib.ExitStack() as stack:
        data = _parse(await _read_limited(request, stack))
    return _checked_object(data)


async def read_json_object_with_large_field(request: Request, field: str) -> tuple[dict[str, Any], memoryview | None]:
    """The body as a JSON object, like `read_json_object`, but a long base64 string in `field`
    comes apart as a view of the body's bytes (the object holds a stand-in for it), so that a
    25 MB document is never copied into text. None when `field` holds no such string."""
    _check_media_type(request)
    with contextlib.ExitStack() as stack:
        body = await _read_limited(request, stack)
        aside = set_aside_long_string(body) if len(body) >= MIN_SET_ASIDE_CHARS else None
        if aside is not None:
            try:
                data = _parse(aside.rest)
            except ApiError:
                data = None  # the whole body's parse names the error where the client wrote it
            if isinstance(data, dict) and data.get(field) == aside.stand_in:
                return _checked_object(data), aside.value
            del aside
        data = _parse(body)
    return _checked_object(data), None


async def parse_json_body(request: Request, model: type[Model]) -> Model:
    return validate_body(await read_json_object(request), model)


def validate_body(data: dict[str, Any], model: type[Model]) -> Model:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid_request(exc.errors(include_url=False, include_input=False), "field") from None
