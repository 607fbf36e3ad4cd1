"""Lists of values sent as one parameter each, for statements compiled once for each length.

PostgreSQL keeps a prepared statement's plan made without its values (the generic plan) once it
looks as good as the plans made with them. For `= ANY` of an array, or `unnest` of one, the plan
with the values knows how many there are and the generic one guesses, so the generic one looks
worse and PostgreSQL plans again at every call, which for a short list costs more than running
the statement. A list of parameters has its length in the statement itself: both plans see it,
and the statement is planned once on each connection.

So that few statements are kept, lists are sent in parts of at most `MOST_A_STATEMENT` values,
each part rounded up to a power of two by repeating its last value; a statement that reads or
locks rows by such a list gets each row once whatever the repeats.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

Value = TypeVar("Value")

MOST_A_STATEMENT = 64


def parts(values: Sequence[Value]) -> Iterator[list[Value]]:
    """`values` in order, in parts of at most `MOST_A_STATEMENT`, each as long as a power of two."""
    for start in range(0, len(values), MOST_A_STATEMENT):
        part = list(values[start : start + MOST_A_STATEMENT])
        length = 1 << (len(part) - 1).bit_length()
        yield part + [part[-1]] * (length - len(part))
