"""Time-ordered UUIDv7 ids (RFC 9562), so that ids sort by creation and can serve as cursors."""

from __future__ import annotations

import os
import threading
import time
import uuid

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
