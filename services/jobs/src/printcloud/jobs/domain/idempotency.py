"""Idempotency-Key rules of job creation (spec "Limits" and "Errors").

Same key and same request: the first answer again, marked replayed. Same key, different request:
`422 idempotency_key_reused`. While the first is being created: `409 idempotency_in_progress`. A
create that fails leaves no key behind (its transaction rolls back), so a retry starts afresh.
Keys are kept 24 hours per organization; the gateway folds the mode into the fingerprint, so a
live request never replays a test job.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from printcloud.contracts.errors import ApiError

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
RETENTION = timedelta(hours=24)


@dataclass(frozen=True)
class IdempotencyClaim:
    key: str
    fingerprint: str


@dataclass(frozen=True)
class StoredAnswer:
    fingerprint: str
    response: bytes


def checked_claim(key: str, fingerprint: str) -> IdempotencyClaim:
    if not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise ApiError("invalid_request", f"`{HEADER}` must be 1 to {MAX_KEY_LENGTH} characters.")
    if not fingerprint:
        raise ApiError("invalid_request", "An idempotency key needs the fingerprint of its request.")
    return IdempotencyClaim(key, fingerprint)


def replayed_answer(claim: IdempotencyClaim, stored: StoredAnswer) -> bytes:
    """The first answer for a key already used; `422` when it came with another request."""
    if stored.fingerprint != claim.fingerprint:
        raise ApiError("idempotency_key_reused", f"This `{HEADER}` was used with a different request.")
    return stored.response


def in_progress() -> ApiError:
    return ApiError("idempotency_in_progress", f"A request with this `{HEADER}` is still being processed.")
