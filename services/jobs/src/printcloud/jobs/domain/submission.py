"""What a new print job request must satisfy before anything is stored (spec "Print jobs").

The gateway checks the same limits; the service checks again because it is the one that stores.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from printcloud.contracts.enums import ContentType
from printcloud.contracts.errors import ApiError
from printcloud.contracts.field_names import public_name
from printcloud.contracts.option_checks import validate_options
from printcloud.contracts.requests import PrintJobCreate
from printcloud.contracts.resources import MAX_TITLE_LENGTH

PDF_BASE64 = ContentType.pdf_base64.value
RAW_BASE64 = ContentType.raw_base64.value
PDF_URI = ContentType.pdf_uri.value
RAW_URI = ContentType.raw_uri.value
CONTENT_TYPES: tuple[str, ...] = tuple(content_type.value for content_type in ContentType)
RAW_CONTENT_TYPES: frozenset[str] = frozenset({RAW_URI, RAW_BASE64})
URL_CONTENT_TYPES: frozenset[str] = frozenset({PDF_URI, RAW_URI})

PDF_MAGIC = b"%PDF-"
MIN_QTY, MAX_QTY, DEFAULT_QTY = 1, 100, 1
MIN_EXPIRE_AFTER, MAX_EXPIRE_AFTER, DEFAULT_EXPIRE_AFTER = 60, 604_800, 86_400
DEFAULT_SOURCE = "api"

# The fields the refusals name.
_PRINTER_ID = public_name(PrintJobCreate, lambda create: create.printerId)
_CONTENT_TYPE = public_name(PrintJobCreate, lambda create: create.contentType)
_EXPIRE_AFTER = public_name(PrintJobCreate, lambda create: create.expireAfter)
_REPRINT_OF = public_name(PrintJobCreate, lambda create: create.reprintOf)


@dataclass(frozen=True)
class Submission:
    """A create request as received; proto3 sends 0 and "" for omitted numbers and text."""

    printer_id: str
    title: str
    content_type: str
    data: bytes | bytearray | None
    url: str | None
    source: str
    qty: int
    expire_after: int
    options_json: str
    reprint_of: str | None
    authentication: tuple[str, str] | None = None


@dataclass(frozen=True)
class AcceptedSubmission:
    """Exactly one of `content` (decoded base64), `url` (with optional Basic credentials) or
    `reprint_of` is set; a reprint's `content_type` is the original's, known only once it is found."""

    printer_id: uuid.UUID
    title: str
    content_type: str | None
    content: bytes | bytearray | None
    url: str | None
    authentication: tuple[str, str] | None
    reprint_of: uuid.UUID | None
    source: str
    qty: int
    expire_after: int
    options: dict[str, Any]


def is_raw(content_type: str) -> bool:
    return content_type in RAW_CONTENT_TYPES


def _invalid(message: str) -> ApiError:
    return ApiError("invalid_request", message)


def _parse_options(options_json: str) -> dict[str, Any]:
    if not options_json:
        return {}
    try:
        options = json.loads(options_json)
    except ValueError:
        raise _invalid("`options` must be a JSON object.") from None
    return validate_options(options)


def _reprint_of(submission: Submission) -> uuid.UUID:
    if submission.content_type or submission.data is not None or submission.url is not None:
        raise _invalid(f"A reprint (`{_REPRINT_OF}`) takes no `{_CONTENT_TYPE}` or `content`.")
    if submission.authentication is not None:
        raise _invalid(f"A reprint (`{_REPRINT_OF}`) takes no `authentication`.")
    try:
        return uuid.UUID(submission.reprint_of or "")
    except ValueError:
        # Not a UUID, so it names no job of this organization.
        raise ApiError("not_found", "No such print job to reprint.") from None


def _check_content_form(submission: Submission) -> None:
    if submission.content_type not in CONTENT_TYPES:
        raise _invalid(f"`{_CONTENT_TYPE}` must be one of " + ", ".join(CONTENT_TYPES) + ".")
    if submission.content_type in URL_CONTENT_TYPES:
        if not submission.url:
            raise _invalid(f"`{_CONTENT_TYPE}` {submission.content_type} takes an http or https URL as `content`.")
        return
    if submission.url is not None:
        raise _invalid(f"`{_CONTENT_TYPE}` {submission.content_type} takes base64 content, not a URL.")
    if submission.authentication is not None:
        raise _invalid("`authentication` applies only to URL content.")
    if not submission.data:
        raise _invalid("`content` must not be empty.")


def accept(submission: Submission) -> AcceptedSubmission:
    """Checks the request's fields and fills defaults; raises `400 invalid_request`."""
    try:
        printer_id = uuid.UUID(submission.printer_id)
    except ValueError:
        raise _invalid(f"`{_PRINTER_ID}` must be a UUID.") from None
    if not 1 <= len(submission.title) <= MAX_TITLE_LENGTH:
        raise _invalid(f"`title` must be 1 to {MAX_TITLE_LENGTH} characters.")
    qty = submission.qty or DEFAULT_QTY
    if not MIN_QTY <= qty <= MAX_QTY:
        raise _invalid(f"`qty` must be an integer from {MIN_QTY} to {MAX_QTY}.")
    expire_after = submission.expire_after or DEFAULT_EXPIRE_AFTER
    if not MIN_EXPIRE_AFTER <= expire_after <= MAX_EXPIRE_AFTER:
        raise _invalid(f"`{_EXPIRE_AFTER}` must be an integer from {MIN_EXPIRE_AFTER} to {MAX_EXPIRE_AFTER}.")
    reprint_of = _reprint_of(submission) if submission.reprint_of is not None else None
    if reprint_of is None:
        _check_content_form(submission)
    is_url = submission.content_type in URL_CONTENT_TYPES
    return AcceptedSubmission(
        printer_id=printer_id,
        title=submission.title,
        content_type=submission.content_type or None,
        content=submission.data if reprint_of is None and not is_url else None,
        url=submission.url if is_url else None,
        authentication=submission.authentication if is_url else None,
        reprint_of=reprint_of,
        source=submission.source or DEFAULT_SOURCE,
        qty=qty,
        expire_after=expire_after,
        options=_parse_options(submission.options_json),
    )


def check_content(content_type: str, content: bytes | bytearray) -> None:
    """Raises `422 invalid_content` for a PDF that is not one."""
    if content_type == PDF_BASE64 and not content.startswith(PDF_MAGIC):
        raise ApiError("invalid_content", "`pdf_base64` content must be a PDF (start with `%PDF-`).")


def options_to_apply(content_type: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options an agent should apply. Raw data goes to the printer untouched, so raw jobs
    keep their options as sent (visible on the job) but deliver none."""
    return {} if content_type in RAW_CONTENT_TYPES else dict(options)
