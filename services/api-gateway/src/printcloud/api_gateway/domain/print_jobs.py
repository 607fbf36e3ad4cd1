"""Rules of `POST /v1/printjobs` that need no other service: body form, defaults, base64 content."""

from __future__ import annotations

import binascii

from printcloud.contracts.enums import ContentType
from printcloud.contracts.errors import ApiError
from printcloud.contracts.job_upload import MAX_DOCUMENT_BYTES
from printcloud.contracts.requests import NEW_DOCUMENT_ONLY, NEW_DOCUMENT_REQUIRED, REPRINT_OF

CONTENT_TYPES: tuple[str, ...] = tuple(ContentType)
BASE64_CONTENT_TYPES = frozenset({ContentType.pdf_base64, ContentType.raw_base64})

# A multiple of 4, so that each slice decodes on its own.
_DECODE_SLICE_CHARS = 1024 * 1024
DEFAULT_SOURCE = "api"
DEFAULT_QTY = 1
DEFAULT_EXPIRE_AFTER = 86400


def check_body_form(present: set[str]) -> None:
    """Exactly one of the spec's two forms: a new document, or a reprint (`printerId`, `title`,
    `reprintOf`, and optionally `source` and `qty`)."""
    if REPRINT_OF in present:
        extra = [name for name in NEW_DOCUMENT_ONLY if name in present]
        if extra:
            raise ApiError("invalid_request", f"`{extra[0]}` cannot be combined with `{REPRINT_OF}`.")
        return
    missing = [name for name in NEW_DOCUMENT_REQUIRED if name not in present]
    if missing:
        raise ApiError("invalid_request", f"Missing required field `{missing[0]}` (or send `{REPRINT_OF}` to reprint).")


def decoded_size(content: str | memoryview) -> int:
    """The size `content` decodes to, known from its length alone (padding aside)."""
    return len(content) // 4 * 3 - sum(1 for char in content[-2:] if char in ("=", ord("=")))


def _checked_size(content: str | memoryview) -> int:
    if len(content) % 4:
        raise ApiError("invalid_request", "`content` is not valid standard base64 (bad padding).")
    size = decoded_size(content)
    if size > MAX_DOCUMENT_BYTES:
        raise ApiError("content_too_large", "The decoded document is larger than 25 MB.")
    return size


def _decode_into(content: str | memoryview, target: bytearray | memoryview, size: int) -> None:
    """Slice by slice, each slice written before the next is read: `target` may be `content`."""
    written = 0
    try:
        for start in range(0, len(content), _DECODE_SLICE_CHARS):
            part = binascii.a2b_base64(content[start : start + _DECODE_SLICE_CHARS], strict_mode=True)
            target[written : written + len(part)] = part
            written += len(part)
    except ValueError:  # binascii.Error, and non-ASCII text
        raise ApiError("invalid_request", "`content` is not valid standard base64.") from None
    if written != size:  # a slice before the last ended in padding: padding inside the text
        raise ApiError("invalid_request", "`content` is not valid standard base64.")


def decode_base64_content(content: str) -> bytearray:
    """Strict standard base64 (RFC 4648 section 4): no URL-safe alphabet, whitespace or bad padding.

    The size limit is checked before decoding anything, and the text is decoded into one buffer
    of the final size: the document exists once as text and once as bytes.
    """
    size = _checked_size(content)
    document = bytearray(size)
    _decode_into(content, document, size)
    return document


def decode_base64_in_place(content: memoryview) -> memoryview:
    """`decode_base64_content` for base64 held as bytes in a writable buffer: the document
    overwrites its own text (a slice decodes to fewer bytes than it has characters, so writing
    never overtakes reading), and costs no memory beyond the body it came in."""
    size = _checked_size(content)
    _decode_into(content, content, size)
    return content[:size]
