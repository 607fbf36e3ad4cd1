"""A batched call's items: refusals keep their places, and a batch too large is refused whole."""

from __future__ import annotations

import pytest

from printcloud.contracts.errors import ApiError, invalid
from printcloud.core.rpc.batches import MOST_PER_CALL, each_in_order


def _number(item: str) -> int:
    if not item.isdigit():
        raise invalid(f"{item!r} is not a number.")
    return int(item)


async def test_an_item_that_does_not_parse_keeps_its_refusal_in_its_place() -> None:
    decided: list[list[int]] = []

    async def double(numbers: list[int]) -> list[int]:
        decided.append(numbers)
        return [2 * n for n in numbers]

    answers = await each_in_order(["1", "x", "3"], "numbers", _number, double)
    assert answers[0] == 2 and answers[2] == 6
    assert isinstance(answers[1], ApiError) and answers[1].code == "invalid_request"
    assert decided == [[1, 3]], "the items that parsed are decided together, once"


async def test_a_batch_larger_than_a_call_may_carry_is_refused_before_anything_is_decided() -> None:
    decided: list[list[int]] = []

    async def record(numbers: list[int]) -> list[int]:
        decided.append(numbers)
        return numbers

    assert len(await each_in_order(["1"] * MOST_PER_CALL, "numbers", _number, record)) == MOST_PER_CALL
    with pytest.raises(ApiError) as refused:
        await each_in_order(["1"] * (MOST_PER_CALL + 1), "numbers", _number, record)
    assert refused.value.code == "invalid_request"
    assert refused.value.message == f"At most {MOST_PER_CALL} numbers per call."
    assert len(decided) == 1
