"""Text the system can keep: no NUL character (PostgreSQL's text type refuses it) and no unpaired
surrogate (it has no UTF-8 encoding). JSON can carry both (`\\u0000`, `\\ud800`), so every edge
checks what it parsed before anything stores or forwards it."""

from __future__ import annotations

import re
from typing import Any

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
PROBLEM = "must not contain NUL characters or unpaired surrogates"


def is_storable(text: str) -> bool:
    return _UNSTORABLE.search(text) is None


def first_unstorable(value: Any, path: str = "") -> str | None:
    """The dotted path (`options.paper`, `customPapers.0.name`) of the first string or object key
    in `value` that is not storable, or None when all are."""
    pending: list[tuple[Any, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            if not is_storable(item):
                return where or "body"
        elif isinstance(item, dict):
            for key, child in item.items():
                inner = f"{where}.{key}" if where else str(key)
                if isinstance(key, str) and not is_storable(key):
                    return where or "body"
                pending.append((child, inner))
        elif isinstance(item, list):
            pending.extend((child, f"{where}.{index}" if where else str(index)) for index, child in enumerate(item))
    return None
