"""The request fingerprint that travels with an `Idempotency-Key` to the jobs service.

Jobs claims the key in the transaction that creates the job and keeps the first answer (spec
"Limits": same key and request replays it, same key with another request is `422`); what the
gateway adds is what makes two requests "the same": the mode and the body, canonically.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

_HASH_CHUNK_CHARS = 1024 * 1024


def fingerprint(mode: str, body: dict[str, Any], content_aside: memoryview | None = None) -> str:
    """A digest of the canonical request: key order and whitespace do not matter.

    `content` (up to about 35 MB of base64) is hashed piecewise rather than serialized again, so
    the fingerprint costs no copy of the document. When it was set aside from the body before
    parsing (`content_aside`, ASCII bytes), it is hashed as it stands: the same digest as its text.
    """
    digest = hashlib.sha256()
    rest = {name: value for name, value in body.items() if name != "content"}
    digest.update(json.dumps([mode, rest], sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode())
    content = body.get("content")
    if content_aside is not None:
        digest.update(b"\0content\0")
        digest.update(content_aside)
    elif isinstance(content, str):
        digest.update(b"\0content\0")
        for start in range(0, len(content), _HASH_CHUNK_CHARS):
            digest.update(content[start : start + _HASH_CHUNK_CHARS].encode("utf-8", "surrogatepass"))
    elif "content" in body:
        digest.update(b"\0content-json\0" + json.dumps(content, sort_keys=True).encode())
    return digest.hexdigest()
