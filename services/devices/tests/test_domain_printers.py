"""Reconciling reported printers with known ones, and report validation."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.devices.domain.printers import KnownPrinter, reconcile, settle_on_computer_state
from printcloud.devices.domain.reports import ReportedPrinter, validate_printer_reports
from printcloud.devices.domain.states import DETAIL_COMPUTER_OFFLINE, DETAIL_SPOOLER_STOPPED, PrinterCondition

CAPS: dict[str, Any] = {"papers": {"A4": [2100, 2970]}, "duplex": True}


def report(name: str = "office", **overrides: Any) -> ReportedPrinter:
    values: dict[str, Any] = {
        "name": name,
        "os_name": f"OS {name}",
        "description": "Laser",
        "is_default": False,
        "state": "online",
        "state_detail": "",
        "capabilities": CAPS,
    }
    return ReportedPrinter(**{**values, **overrides})


def known(name: str = "office", **overrides: Any) -> KnownPrinter:
    values: dict[str, Any] = {
        "id": uuid.uuid4(),
        "name": name,
        "display_name": f"Display {name}",
        "os_name": f"OS {name}",
        "description": "Laser",
        "is_default": False,
        "state": "online",
        "state_detail": "",
        "capabilities": CAPS,
    }
    return KnownPrinter(**{**values, **overrides})


def test_new_names_are_added_with_the_effective_state() -> None:
    jammed = report("b", state="offline", state_detail="Jam", state_reasons=["media-jam-error"])
    plan = reconcile([], [report("a"), jammed], "online")
    added = [(n.report.name, n.condition) for n in plan.added]
    assert added == [
        ("a", PrinterCondition("online", (), "")),
        ("b", PrinterCondition("offline", ("media-jam",), "Jam")),
    ]
    assert plan.updated == [] and plan.removed == []


def test_printers_of_an_offline_computer_are_added_offline() -> None:
    plan = reconcile([], [report("a")], "offline")
    assert plan.added[0].condition == PrinterCondition("offline", (), DETAIL_COMPUTER_OFFLINE)


def test_an_unchanged_report_changes_nothing() -> None:
    plan = reconcile([known("a")], [report("a")], "online")
    assert (plan.added, plan.updated, plan.removed) == ([], [], [])


def test_missing_printers_are_removed() -> None:
    gone = known("gone")
    plan = reconcile([known("a"), gone], [report("a")], "online")
    assert plan.removed == [gone]


def test_reported_fact_changes_are_listed_with_from_and_to() -> None:
    new_caps = {**CAPS, "duplex": False}
    changed = report("a", description="Inkjet", is_default=True, capabilities=new_caps)
    plan = reconcile([known("a")], [changed], "online")
    (update,) = plan.updated
    assert update.changes == {
        "description": {"from": "Laser", "to": "Inkjet"},
        "isDefault": {"from": False, "to": True},
        "capabilities": {"from": CAPS, "to": new_caps},
    }
    assert not update.state_changed
    assert update.values["description"] == "Inkjet"


def test_reports_never_touch_user_owned_settings() -> None:
    plan = reconcile([known("a")], [report("a", os_name="Renamed by OS")], "online")
    (update,) = plan.updated
    assert "display_name" not in update.values
    assert "default_options" not in update.values
    assert update.changes == {"osName": {"from": "OS a", "to": "Renamed by OS"}}


def test_a_spooler_state_change_is_a_state_change_not_an_update() -> None:
    paused = report("a", state="offline", state_detail="Paused", state_reasons=["paused"])
    plan = reconcile([known("a")], [paused], "online")
    (update,) = plan.updated
    assert update.state_changed and update.changes == {}
    assert update.values == {
        "os_name": "OS a",
        "description": "Laser",
        "is_default": False,
        "capabilities": CAPS,
        "state": "offline",
        "state_reasons": ["paused"],
        "state_detail": "Paused",
    }


def test_a_detail_change_alone_is_an_update_without_a_state_change() -> None:
    plan = reconcile([known("a", state="offline", state_detail="Jam")], [report("a", state="offline")], "online")
    (update,) = plan.updated
    assert not update.state_changed
    assert update.values["state_detail"] == DETAIL_SPOOLER_STOPPED
    assert update.changes == {"stateDetail": {"from": "Jam", "to": DETAIL_SPOOLER_STOPPED}}


def test_reasons_that_change_while_the_state_stays_are_an_update() -> None:
    low = report("a", state_detail="The printer reports toner low", state_reasons=["toner-low-warning"])
    plan = reconcile([known("a")], [low], "online")
    (update,) = plan.updated
    assert not update.state_changed
    assert update.changes == {
        "stateReasons": {"from": [], "to": ["toner-low"]},
        "stateDetail": {"from": "", "to": "The printer reports toner low"},
    }
    assert update.condition == PrinterCondition("online", ("toner-low",), "The printer reports toner low")


def test_reasons_are_compared_as_normalised_keywords() -> None:
    """A spooler naming the same condition with another severity or order changes nothing."""
    before = known("a", state="offline", state_detail="Stopped", state_reasons=("media-empty", "paused"))
    again = report("a", state="offline", state_detail="Stopped", state_reasons=["paused", "media-empty-error", "none"])
    assert reconcile([before], [again], "online").updated == []


def test_a_removed_printer_that_comes_back_is_revived() -> None:
    removed = known("a", removed=True)
    plan = reconcile([removed], [report("a")], "online")
    assert plan.added == []
    (update,) = plan.updated
    assert update.revived and update.printer is removed
    assert update.values["removed_at"] is None


def test_a_printer_in_use_wins_over_a_removed_one_of_the_same_name() -> None:
    old = known("a", removed=True)
    current = replace(known("a"), id=uuid.uuid4())
    plan = reconcile([old, current], [report("a", description="New")], "online")
    (update,) = plan.updated
    assert update.printer is current and not update.revived


def test_disconnect_takes_every_printer_offline_once() -> None:
    online = known("a")
    already = known("b", state="offline", state_detail=DETAIL_COMPUTER_OFFLINE)
    removed = known("c", removed=True)
    updates = settle_on_computer_state([online, already, removed], "offline")
    assert [u.printer for u in updates] == [online]
    assert updates[0].state_changed
    assert updates[0].values == {"state": "offline", "state_reasons": [], "state_detail": DETAIL_COMPUTER_OFFLINE}


def test_disconnect_clears_the_reasons_of_a_printer_already_offline() -> None:
    paused = known("a", state="offline", state_detail="Queue paused", state_reasons=("paused",))
    (update,) = settle_on_computer_state([paused], "offline")
    assert not update.state_changed
    assert update.changes == {
        "stateReasons": {"from": ["paused"], "to": []},
        "stateDetail": {"from": "Queue paused", "to": DETAIL_COMPUTER_OFFLINE},
    }


@pytest.mark.parametrize(
    "reports",
    [
        [report("")],
        [report("x" * 256)],
        [report("a"), report("a")],
        [report("a", state="sleeping")],
    ],
)
def test_ambiguous_or_unknown_reports_are_rejected(reports: list[ReportedPrinter]) -> None:
    with pytest.raises(ApiError) as caught:
        validate_printer_reports(reports)
    assert caught.value.code == "invalid_request"
    with pytest.raises(ApiError):
        reconcile([], reports, "online")
