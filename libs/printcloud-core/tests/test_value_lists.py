"""How a list of values is cut into the parts that statements of one parameter a value take."""

from __future__ import annotations

from printcloud.core.db.value_lists import MOST_A_STATEMENT, parts


def test_a_short_list_is_one_part_as_long_as_a_power_of_two_its_last_value_repeated() -> None:
    assert list(parts([1])) == [[1]]
    assert list(parts([1, 2])) == [[1, 2]]
    assert list(parts([1, 2, 3])) == [[1, 2, 3, 3]]
    assert list(parts([1, 2, 3, 4, 5])) == [[1, 2, 3, 4, 5, 5, 5, 5]]


def test_a_long_list_is_cut_in_order_into_parts_of_at_most_the_largest_length() -> None:
    values = list(range(2 * MOST_A_STATEMENT + 3))
    cut = list(parts(values))
    assert [len(part) for part in cut] == [MOST_A_STATEMENT, MOST_A_STATEMENT, 4]
    assert [value for part in cut for value in dict.fromkeys(part)] == values


def test_no_values_make_no_part() -> None:
    assert list(parts([])) == []
