"""Rules of `POST /v1/printjobs` that need no other service: body form, defaults, base64 content."""

from __future__ import annotations

import base64
import binascii

from printcloud.core.errors import ApiError

CONTENT_TYPES: tuple[str, ...] = ("pdf_uri", "pdf_base64", "raw_uri", "raw_base64")
BASE64_CONTENT_TYPES = frozenset({"pdf_base64", "raw_base64"})
JOB_STATES: tuple[str, ...] = ("queued", "sent", "received", "printing", "done", "error", "cancelled", "expired")

MAX_DOCUMENT_BYTES = 25 * 1024 * 1024
DEFAULT_SOURCE = "api"
DEFAULT_QTY = 1
DEFAULT_EXPIRE_AFTER = 86400

NEW_DOCUMENT_REQUIRED = ("contentType", "content")
NEW_DOCUMENT_ONLY = ("contentType", "content", "source", "qty", "expireAfter", "options", "authentication")


def check_body_form(present: set[str]) -> None:
    """Exactly one of the spec's two forms: a new document, or a reprint of `printerId` + `title` + `reprintOf`."""
    if "reprintOf" in present:
        extra = [name for name in NEW_DOCUMENT_ONLY if name in present]
        if extra:
            raise ApiError("invalid_request", f"`{extra[0]}` cannot be combined with `reprintOf`.")
        return
    missing = [name for name in NEW_DOCUMENT_REQUIRED if name not in present]
    if missing:
        raise ApiError("invalid_request", f"Missing required field `{missing[0]}` (or send `reprintOf` to reprint).")


def decode_base64_content(content: str) -> bytes:
    """Strict standard base64 (RFC 4648 section 4): no URL-safe alphabet, whitespace or bad padding."""
    try:
        data = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError("invalid_request", "`content` is not valid standard base64.") from None
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ApiError("content_too_large", "The decoded document is larger than 25 MB.")
    return data
