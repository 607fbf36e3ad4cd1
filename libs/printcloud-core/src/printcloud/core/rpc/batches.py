"""Calls that carry many items, each with its own answer (a gateway's reports, claims, hellos):
what every servicer of such a call does with the items before its use case decides them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

from printcloud.contracts.errors import ApiError

Item = TypeVar("Item")
Parsed = TypeVar("Parsed")
Answer = TypeVar("Answer")


async def each_in_order(
    items: Iterable[Item],
    parse: Callable[[Item], Parsed],
    decide: Callable[[list[Parsed]], Awaitable[Sequence[Answer]]],
) -> list[Answer | ApiError]:
    """A batch's answers in the order of its items: an item that does not parse keeps its refusal
    in its place, and the others are decided together."""
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
