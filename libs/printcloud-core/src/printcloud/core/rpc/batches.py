"""Calls that carry many items, each with its own answer (a gateway's reports, claims, hellos):
what every servicer of such a call does with the items before its use case decides them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence, Sized
from typing import TypeVar

from printcloud.contracts.errors import ApiError, invalid

Item = TypeVar("Item")
Parsed = TypeVar("Parsed")
Answer = TypeVar("Answer")

# A batch is decided in one transaction; a bound keeps its locks and its answer's size bounded.
MOST_PER_CALL = 1000


def at_most_per_call(items: Sized, what: str) -> None:
    if len(items) > MOST_PER_CALL:
        raise invalid(f"At most {MOST_PER_CALL} {what} per call.")


async def each_in_order(
    items: Collection[Item],
    what: str,
    parse: Callable[[Item], Parsed],
    decide: Callable[[list[Parsed]], Awaitable[Sequence[Answer]]],
) -> list[Answer | ApiError]:
    """A batch's answers in the order of its items (`what` names them in the refusal of a batch
    too large): an item that does not parse keeps its refusal in its place, and the others are
    decided together."""
    at_most_per_call(items, what)
    refusals: list[ApiError | None] = []
    parsed: list[Parsed] = []
    for item in items:
        try:
            parsed.append(parse(item))
        except ApiError as refused:
            refusals.append(refused)
        else:
            refusals.append(None)
    decided = iter(await decide(parsed) if parsed else [])
    return [refused if refused is not None else next(decided) for refused in refusals]
