"""JSON from strangers, parsed within bounds: nesting depth and the size of numbers.

The standard parser recurses once per level, so a document nested a thousand deep raises
`RecursionError` (not `ValueError`) and takes the handler down with it; integers are read whole,
so a number of thousands of digits costs time and memory before anything checks it. Every edge
that parses JSON it did not write (the API, the agent protocol) parses it here.
"""

from __future__ import annotations

import json
from typing import Any

# Far beyond any document of ours (a job's options are three levels deep) and far below the
# interpreter's recursion limit.
DEFAULT_MAX_DEPTH = 32
# Enough for any count, size or id (a 64-bit integer has 20 digits).
MAX_NUMBER_DIGITS = 30


class JsonRefused(ValueError):
    """Not JSON, or JSON beyond the bounds; the message says which, in terms a client can act on."""


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise JsonRefused(f"a number has more than {MAX_NUMBER_DIGITS} digits")
    return int(text)


def _bounded_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS * 2:
        raise JsonRefused(f"a number has more than {MAX_NUMBER_DIGITS * 2} characters")
    return float(text)


def _no_constants(name: str) -> Any:
    raise JsonRefused(f"{name} is not valid JSON")


def depth_exceeds(value: Any, max_depth: int) -> bool:
    """Whether `value` nests containers deeper than `max_depth`; iterative, so any depth is safe."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, level = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if level > max_depth:
            return True
        pending.extend((child, level + 1) for child in children)
    return False


def loads(text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The parsed document; raises `JsonRefused` for invalid JSON, deep nesting or huge numbers."""
    try:
        value = json.loads(text, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_no_constants)
    except JsonRefused:
        raise
    except RecursionError:
        raise JsonRefused(f"JSON nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as error:
        raise JsonRefused(f"invalid JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except ValueError:
        raise JsonRefused("invalid JSON") from None
    if depth_exceeds(value, max_depth):
        raise JsonRefused(f"JSON nested deeper than {max_depth} levels")
    return value
