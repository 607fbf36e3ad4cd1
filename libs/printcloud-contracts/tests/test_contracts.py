"""Rules the contract models hold beyond their fields: what blank and a page list are (the server
and the document must agree), every error code with a status, every event type with a model."""

from __future__ import annotations

import re

import pytest

from printcloud.contracts.enums import EventType
from printcloud.contracts.errors import STATUS_BY_CODE, ErrorCode
from printcloud.contracts.events import DELIVERY_MODELS, Event
from printcloud.contracts.options import PAGES, CustomPaper, pages_problem
from printcloud.contracts.requests import NEW_DOCUMENT_ONLY, NEW_DOCUMENT_REQUIRED, REPRINT_OF
from printcloud.contracts.text import NON_BLANK, is_blank


@pytest.mark.parametrize("text", ["a", " a ", "\u00a0", "\ufeff", "\x1c", "é"])
def test_text_with_a_character_beyond_the_six_blanks_is_not_blank(text: str) -> None:
    assert not is_blank(text)
    assert re.search(NON_BLANK, text)


@pytest.mark.parametrize("text", ["", " ", "\t\n\r\f\v "])
def test_the_six_ascii_blanks_are_blank(text: str) -> None:
    assert is_blank(text)
    assert not re.search(NON_BLANK, text)


@pytest.mark.parametrize("pages", ["1", "1-3,5", " 2 - ", "\t7\t,8", "01-10"])
def test_pages_the_pattern_takes(pages: str) -> None:
    expected = re.search(PAGES, pages) is not None
    assert (pages_problem(pages) is None) == expected


@pytest.mark.parametrize("pages", ["1\v", "1\f,2", "\u0661", "0", "1,,2", "3-1", ""])
def test_pages_refused(pages: str) -> None:
    assert pages_problem(pages) is not None


def test_only_the_ordering_of_a_range_is_beyond_the_pattern() -> None:
    assert re.search(PAGES, "3-1") and pages_problem("3-1") == "ranges that do not end before they start"


def test_every_error_code_has_one_status() -> None:
    assert set(STATUS_BY_CODE) == set(ErrorCode)


def test_every_event_type_and_ping_has_its_delivery_model() -> None:
    assert set(DELIVERY_MODELS) == {*EventType, "ping"}
    assert len(Event.model_json_schema()["oneOf"]) == len(EventType)


def test_a_custom_paper_is_strict_but_takes_json_integers_written_as_floats() -> None:
    assert CustomPaper.model_validate({"name": "Card", "width": 850.0, "height": 550}).width == 850
    with pytest.raises(ValueError):
        CustomPaper.model_validate({"name": "Card", "width": "850", "height": 550})
    with pytest.raises(ValueError):
        CustomPaper.model_validate({"name": "\t", "width": 850, "height": 550})


def test_the_print_job_forms_are_told_apart_by_the_fields_the_spec_gives_them() -> None:
    assert REPRINT_OF == "reprintOf"
    assert NEW_DOCUMENT_ONLY == ("contentType", "content", "expireAfter", "options", "authentication")
    assert NEW_DOCUMENT_REQUIRED == ("contentType", "content")
