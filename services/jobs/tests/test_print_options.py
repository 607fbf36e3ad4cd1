"""Print option names, types and ranges (spec "Print options"), and filling from defaults."""

from __future__ import annotations

from typing import Any

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.contracts.option_checks import validate_options
from printcloud.jobs.domain.options import with_defaults

EVERY_OPTION: dict[str, Any] = {
    "copies": 999,
    "paper": "A4",
    "duplex": "long-edge",
    "color": False,
    "dpi": "600x600",
    "bin": "Tray 1",
    "media": "plain",
    "collate": True,
    "fit_to_page": True,
    "rotate": 270,
    "pages": "1-3, 5,7-7",
    "nup": 16,
}


def test_every_option_at_a_valid_value_passes() -> None:
    assert validate_options(EVERY_OPTION) == EVERY_OPTION


def test_no_options_pass() -> None:
    assert validate_options({}) == {}


def test_unknown_option_is_named() -> None:
    with pytest.raises(ApiError) as caught:
        validate_options({"copies": 1, "staple": True})
    assert caught.value.code == "invalid_request"
    assert "staple" in caught.value.message


@pytest.mark.parametrize("options", [[], "copies=2", None, 3])
def test_options_must_be_an_object(options: object) -> None:
    with pytest.raises(ApiError) as caught:
        validate_options(options)
    assert caught.value.code == "invalid_request"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("copies", 0),
        ("copies", 1000),
        ("copies", "2"),
        ("copies", True),
        ("copies", 2.0),
        ("paper", ""),
        ("paper", 4),
        ("duplex", "both"),
        ("duplex", True),
        ("color", "true"),
        ("color", 1),
        ("dpi", None),
        ("bin", ["Tray 1"]),
        ("media", "  "),
        ("collate", 0),
        ("fit_to_page", "yes"),
        ("rotate", 45),
        ("rotate", "90"),
        ("rotate", False),
        ("pages", "3-1"),
        ("pages", "0"),
        ("pages", "1-"),
        ("pages", "1,,2"),
        ("pages", "a"),
        ("pages", 5),
        ("nup", 0),
        ("nup", 17),
        ("nup", "2"),
    ],
)
def test_out_of_range_or_mistyped_option_is_named(name: str, value: object) -> None:
    with pytest.raises(ApiError) as caught:
        validate_options({name: value})
    assert caught.value.code == "invalid_request"
    assert f"`options.{name}`" in caught.value.message


def test_defaults_fill_only_omitted_options() -> None:
    merged = with_defaults({"copies": 2}, {"copies": 5, "duplex": "short-edge", "color": False})
    assert merged == {"copies": 2, "duplex": "short-edge", "color": False}


def test_unknown_or_invalid_defaults_are_skipped() -> None:
    merged = with_defaults({}, {"staple": True, "nup": 99, "paper": "Letter"})
    assert merged == {"paper": "Letter"}


@pytest.mark.parametrize("defaults", [None, [], "A4"])
def test_defaults_that_are_not_an_object_add_nothing(defaults: object) -> None:
    assert with_defaults({"copies": 1}, defaults) == {"copies": 1}
