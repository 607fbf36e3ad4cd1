"""Time-ordered UUIDv7 ids (RFC 9562), so that ids sort by creation and can serve as cursors."""

from __future__ import annotations

import os
import threading
import time
import uuid

from printcloud.contracts.errors import invalid, not_found

_lock = threading.Lock()
_last_ms = 0
_counter = 0


def uuid7() -> uuid.UUID:
    """A UUIDv7 that is strictly increasing within this process.

    The 12-bit `rand_a` field holds a counter seeded randomly each millisecond, so ids minted in
    the same millisecond by one process still sort in minting order.
    """
    global _last_ms, _counter
    with _lock:
        now_ms = time.time_ns() // 1_000_000
        if now_ms > _last_ms:
            _last_ms = now_ms
            _counter = int.from_bytes(os.urandom(2), "big") & 0x7FF
        else:
            _counter += 1
            if _counter > 0xFFF:
                # Counter exhausted: borrow the next millisecond rather than break ordering.
                _last_ms += 1
                _counter = 0
        ms, counter = _last_ms, _counter
    rand_b = int.from_bytes(os.urandom(8), "big") & ((1 << 62) - 1)
    value = (ms & ((1 << 48) - 1)) << 80
    value |= 0x7 << 76
    value |= counter << 64
    value |= 0b10 << 62
    value |= rand_b
    return uuid.UUID(int=value)


def new_id() -> str:
    return str(uuid7())


def parse_uuid(value: str) -> uuid.UUID | None:
    """The UUID in `value`, or None when it is not one (callers answer 404 or 400 as fits)."""
    try:
        return uuid.UUID(value)
    except (ValueError, AttributeError, TypeError):
        return None


def resource_id(value: str, what: str) -> uuid.UUID:
    """The id of the resource a request addresses (a path id). One that is not a UUID names no
    resource, so it is `404 not_found`, exactly like an id of another organization (spec)."""
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return parsed


def uuid_field(value: str, field: str) -> uuid.UUID:
    """A UUID a request states about something else (a filter, a reference): `400 invalid_request`
    when it is not one, since the request itself is wrong."""
    parsed = parse_uuid(value)
    if parsed is None:
        raise invalid(f"`{field}` must be a UUID.")
    return parsed
