"""Blank text, with one definition for the server's checks and the document's patterns.

JSON Schema patterns are ECMA-262 regular expressions, whose `\\s` differs from Python's (and
Python's `str.strip()` trims still other characters), so neither is used: blanks are exactly the
six ASCII white-space characters, written out, and the server tests with the same pattern the
document shows.
"""

from __future__ import annotations

BLANKS = " \t\n\r\f\v"
_BLANK_CLASS = "\\t\\n\\r\\f\\v "
# Some character that is neither blank nor NUL (NUL is refused everywhere: storable_text).
NON_BLANK = f"^[^\\u0000]*[^{_BLANK_CLASS}\\u0000][^\\u0000]*$"


def is_blank(text: str) -> bool:
    """True when `text` holds nothing but `BLANKS`: what the document's NON_BLANK pattern refuses."""
    return not text.strip(BLANKS)


def trimmed(text: str) -> str:
    return text.strip(BLANKS)
