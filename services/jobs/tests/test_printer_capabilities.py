"""Spec "Print options" rule 3: options the printer cannot honour are dropped, each with a warning."""

from __future__ import annotations

from typing import Any

import pytest

from printcloud.jobs.domain.capabilities import fit_to_printer, join_messages

CAPABILITIES: dict[str, Any] = {
    "papers": {"A4": [2100, 2970]},
    "bins": ["tray1"],
    "dpis": ["600x600"],
    "medias": [],
    "duplex": False,
    "color": False,
    "collate": False,
    "copies": 5,
    "nup": [1, 2],
}


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("paper", "Tabloid"),
        ("duplex", "long-edge"),
        ("color", True),
        ("collate", True),
        ("dpi", "1200x1200"),
        ("bin", "tray9"),
        ("media", "glossy"),
        ("nup", 4),
    ],
)
def test_an_option_the_printer_cannot_honour_is_dropped_with_a_warning_naming_it(option: str, value: object) -> None:
    fitted = fit_to_printer({option: value, "pages": "1"}, CAPABILITIES, [])
    assert fitted.options == {"pages": "1"}
    assert len(fitted.warnings) == 1 and fitted.warnings[0].startswith(f"{option} ignored")


@pytest.mark.parametrize(
    ("option", "value"),
    [("paper", "A4"), ("paper", "Shipping"), ("duplex", "one-sided"), ("color", False), ("dpi", "600x600"), ("nup", 2)],
)
def test_what_the_printer_can_do_is_kept(option: str, value: object) -> None:
    assert fit_to_printer({option: value}, CAPABILITIES, ["Shipping"]).options == {option: value}


def test_copies_are_capped_by_the_capabilities() -> None:
    fitted = fit_to_printer({"copies": 9}, CAPABILITIES, [])
    assert fitted.options == {"copies": 5} and "copies reduced to 5" in fitted.warnings[0]


def test_unreported_capabilities_drop_nothing() -> None:
    assert fit_to_printer({"duplex": "long-edge", "dpi": "300x300"}, {}, []).warnings == []
    assert fit_to_printer({"copies": 3}, None, []).options == {"copies": 3}


def test_messages_join_in_order_and_empty_is_none() -> None:
    assert join_messages("duplex ignored", None, "jammed") == "duplex ignored; jammed"
    assert join_messages(None, "") is None
