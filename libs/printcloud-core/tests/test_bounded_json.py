from __future__ import annotations

import pytest

from printcloud.core.http.bounded_json import JsonRefused, depth_exceeds, loads


def test_ordinary_documents_parse_as_usual() -> None:
    assert loads('{"a": [1, 2.5, {"b": null}], "c": "x"}') == {"a": [1, 2.5, {"b": None}], "c": "x"}
    assert loads(b'{"n": -12345678901234567890}') == {"n": -12345678901234567890}


@pytest.mark.parametrize("levels", [33, 1_000, 100_000])
def test_deep_nesting_is_refused_whatever_the_depth(levels: int) -> None:
    with pytest.raises(JsonRefused, match="nested deeper than 32 levels"):
        loads("[" * levels + "]" * levels)


def test_the_depth_limit_counts_containers() -> None:
    assert loads("[" * 32 + "]" * 32) is not None
    assert not depth_exceeds({"a": {"b": [1]}}, 3)
    assert depth_exceeds({"a": {"b": [[]]}}, 3)


@pytest.mark.parametrize("number", ["9" * 5000, "-" + "9" * 31, "1" + "0" * 80 + ".5", "1e" + "9" * 70])
def test_huge_numbers_are_refused_before_they_are_read(number: str) -> None:
    with pytest.raises(JsonRefused, match="a number has more than"):
        loads(f'{{"pages": {number}}}')


@pytest.mark.parametrize("text", ["", "{", "nul", "[1,]", b"\xff"])
def test_invalid_json_is_refused_as_such(text: str | bytes) -> None:
    with pytest.raises(JsonRefused, match=r"^invalid JSON"):
        loads(text)


def test_the_refusal_says_where() -> None:
    with pytest.raises(JsonRefused, match=r"^invalid JSON \(Expecting value at line 2 column 11\)$"):
        loads('{"a":\n  1, "b": }')


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_constants_are_refused(constant: str) -> None:
    with pytest.raises(JsonRefused, match=f"{constant} is not valid JSON"):
        loads(f'{{"x": {constant}}}')
