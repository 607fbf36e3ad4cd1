"""Reading the dashboard's form posts within bounds, whoever sends them (sign-in forms included)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from starlette.datastructures import FormData
from starlette.formparsers import FormParser, MultiPartException, MultiPartParser
from starlette.requests import Request

from printcloud.contracts.errors import ApiError
from printcloud.core.storable_text import PROBLEM, is_storable

# Every form but the print form is a handful of short fields.
FORM_BYTES = 64 * 1024
# The print form: a PDF of up to 25 MB (the API's limit) and a few fields.
UPLOAD_FORM_BYTES = 26 * 1024 * 1024
MAX_FIELDS = 50


async def _limited(request: Request, max_bytes: int) -> AsyncGenerator[bytes, None]:
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > max_bytes:
            raise ApiError("content_too_large", f"The form is larger than {max_bytes // 1024} KB.")
        yield chunk


async def read_form(request: Request, max_bytes: int = FORM_BYTES) -> FormData:
    """The posted fields, parsed as they arrive; uploads past 1 MB are spooled to a temporary file."""
    form = await _parse(request, max_bytes)
    for name, value in form.multi_items():
        text = value if isinstance(value, str) else value.filename or ""
        if not (is_storable(name) and is_storable(text)):
            await form.close()
            raise ApiError("invalid_request", f"The form field `{name}` {PROBLEM}.")
    return form


async def _parse(request: Request, max_bytes: int) -> FormData:
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    stream = _limited(request, max_bytes)
    if media_type == "application/x-www-form-urlencoded":
        return await FormParser(request.headers, stream).parse()
    if media_type == "multipart/form-data":
        try:
            return await MultiPartParser(request.headers, stream, max_files=1, max_fields=MAX_FIELDS).parse()
        except MultiPartException as exc:
            raise ApiError("invalid_request", f"The form could not be read: {exc.message}") from None
    raise ApiError("invalid_request", "Send the form as a web page does (URL-encoded or multipart).")
