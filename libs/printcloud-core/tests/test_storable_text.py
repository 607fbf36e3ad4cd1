from __future__ import annotations

import pytest

from printcloud.core.storable_text import first_unstorable, is_storable


@pytest.mark.parametrize("text", ["a\x00b", "\ud800", "x\udfff", "\x00"])
def test_nul_and_lone_surrogates_are_not_storable(text: str) -> None:
    assert not is_storable(text)


@pytest.mark.parametrize("text", ["", "plain", "émoji 🖨", "tab\tand newline\n", "\u2028"])
def test_ordinary_text_is_storable(text: str) -> None:
    assert is_storable(text)


def test_the_path_of_the_first_bad_string_is_named() -> None:
    assert first_unstorable({"title": "ok", "options": {"paper": "A4\x00"}}) == "options.paper"
    assert first_unstorable({"customPapers": [{"name": "a"}, {"name": "\ud83d"}]}) == "customPapers.1.name"
    assert first_unstorable({"options": {"bad\x00key": 1}}) == "options"
    assert first_unstorable("\x00") == "body"
    assert first_unstorable({"a": [1, None, True, {"b": "fine"}]}) is None
