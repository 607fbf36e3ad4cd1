"""Idempotency-Key rules of `POST /v1/printjobs` (spec "Limits" and "Errors").

Same key and same request: the first response again, with `Idempotent-Replayed: true`. Same key,
different request: `422 idempotency_key_reused`. While the first is running: `409
idempotency_in_progress`. A first request that failed (4xx or 5xx) releases the key. Keys are
kept 24 hours per organization; the request's mode is part of what makes two requests the same,
so a live request never replays a test job.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from printcloud.core.errors import ApiError

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
RETENTION = timedelta(hours=24)
# How long a first request may hold its key before a crashed replica's claim is taken over.
IN_PROGRESS_LEASE = timedelta(minutes=5)
_HASH_CHUNK_CHARS = 1024 * 1024


def checked_key(value: str) -> str:
    if not 1 <= len(value) <= MAX_KEY_LENGTH:
        raise ApiError("invalid_request", f"`{HEADER}` must be 1 to {MAX_KEY_LENGTH} characters.")
    return value


def fingerprint(mode: str, body: dict[str, Any]) -> str:
    """A digest of the canonical request: key order and whitespace do not matter.

    `content` (up to about 35 MB of base64) is hashed piecewise rather than serialized again, so
    the fingerprint costs no copy of the document.
    """
    digest = hashlib.sha256()
    rest = {name: value for name, value in body.items() if name != "content"}
    digest.update(json.dumps([mode, rest], sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode())
    content = body.get("content")
    if isinstance(content, str):
        digest.update(b"\0content\0")
        for start in range(0, len(content), _HASH_CHUNK_CHARS):
            digest.update(content[start : start + _HASH_CHUNK_CHARS].encode("utf-8", "surrogatepass"))
    elif "content" in body:
        digest.update(b"\0content-json\0" + json.dumps(content, sort_keys=True).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class StoredResponse:
    status: int
    body: Any


def decide(requested: str, stored_fingerprint: str, stored: StoredResponse | None) -> StoredResponse:
    """For a key someone else claimed first: the response to replay, or the error to answer."""
    if stored_fingerprint != requested:
        raise ApiError("idempotency_key_reused", f"This `{HEADER}` was used with a different request.")
    if stored is None:
        raise ApiError("idempotency_in_progress", f"A request with this `{HEADER}` is still being processed.")
    return stored
