"""The `Idempotency-Key` header of `POST /v1/printjobs`: checked here, so the client gets the
answer at once, and again by jobs (its `domain/idempotency.py`), which claims the key and trusts
no caller's checks."""

from __future__ import annotations

from printcloud.contracts.errors import ApiError

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_LENGTH = 255


def checked_key(value: str) -> str:
    if not 1 <= len(value) <= MAX_LENGTH:
        raise ApiError("invalid_request", f"`{HEADER}` must be 1 to {MAX_LENGTH} characters.")
    return value
