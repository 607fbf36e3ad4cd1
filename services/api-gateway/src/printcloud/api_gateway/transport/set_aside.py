"""Speed machinery: a document's base64 set aside before parsing (docs/performance.md, "Speed machinery").

A 25 MB document arrives as 35 MB of base64 inside the body. Parsed whole, the body is held as
bytes, then as text, then as the parsed string: two or three copies at a time. The base64
alphabet needs no escape in JSON and cannot follow a closing quote, so a long run of it right
after an unescaped quote and up to the next quote is a whole string value. It is cut out in place
(a view of the body's own bytes), a random stand-in takes its place, and only the small rest is
parsed. Whatever the cut cannot prove (the stand-in not landing on the expected field, the rest not
parsing) falls back to parsing the whole body, so the answer never depends on this shortcut.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

# Shorter strings cost little to parse; the shortcut is for the document.
MIN_SET_ASIDE_CHARS = 64 * 1024
_LONG_BASE64_STRING = re.compile(rb'(?<!\\)"([A-Za-z0-9+/=]{%d,})"' % MIN_SET_ASIDE_CHARS)


@dataclass(frozen=True)
class SetAside:
    """The body without the long string (`rest`, with `stand_in` as that string's value), and
    the string itself as a view of the body's bytes."""

    rest: bytes
    stand_in: str
    value: memoryview


def set_aside_long_string(body: bytearray) -> SetAside | None:
    """The body's first long base64 string set aside, or None when it has none."""
    found = _LONG_BASE64_STRING.search(body)
    if found is None:
        return None
    stand_in = f"printcloud-set-aside-{secrets.token_hex(16)}"
    rest = b"".join((body[: found.start(1)], stand_in.encode(), body[found.end(1) :]))
    return SetAside(rest=rest, stand_in=stand_in, value=memoryview(body)[found.start(1) : found.end(1)])
