"""Writes the synchronous client from the asynchronous one (as httpcore does), so that the two
never differ but in `await`.

    python sdk/python/tools/unasync.py   # rewrites src/printcloud_sdk/_sync_client.py

A test fails when the committed file is not what this writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from formatting import ruff_formatted

SOURCE = Path(__file__).parents[1] / "src" / "printcloud_sdk" / "_async_client.py"
TARGET = SOURCE.with_name("_sync_client.py")

# Applied in order, as regular expressions on whole words.
REPLACEMENTS = (
    (
        r'"""The asynchronous client\. `_sync_client\.py` is generated from this file by tools/unasync\.py\n'
        r"\(`make sdk`\): change this one, then regenerate\.\"\"\"",
        '"""The synchronous client, generated from `_async_client.py` by tools/unasync.py: do not edit."""',
    ),
    (r"\bawait asyncio\.to_thread\(([\w.]+)\)", r"\1()"),
    (r"\bimport asyncio\b", "import time"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"\basync def\b", "def"),
    (r"\basync for\b", "for"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
    (r"\b__aenter__\b", "__enter__"),
    (r"\b__aexit__\b", "__exit__"),
    (r"\b__aiter__\b", "__iter__"),
    (r"\baclose\b", "close"),
    (r"\bAsync(?=[A-Z])", ""),
)


def unasync(source: str) -> str:
    for pattern, replacement in REPLACEMENTS:
        source = re.sub(pattern, replacement, source)
    return source


def main() -> None:
    generated = ruff_formatted(unasync(SOURCE.read_text()), str(TARGET))
    if "--check" in sys.argv:
        sys.exit(0 if TARGET.exists() and TARGET.read_text() == generated else 1)
    TARGET.write_text(generated)


if __name__ == "__main__":
    main()
