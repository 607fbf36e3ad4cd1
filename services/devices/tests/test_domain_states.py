"""Computer and printer state rules."""

from __future__ import annotations

import pytest

from printcloud.devices.domain.states import (
    DETAIL_COMPUTER_DISABLED,
    DETAIL_COMPUTER_OFFLINE,
    DETAIL_SPOOLER_STOPPED,
    PrinterCondition,
    computer_event_type,
    computer_state_when_connected,
    computer_state_when_disconnected,
    computer_state_when_switched,
    disconnect_applies,
    printer_condition,
)


def test_connecting_makes_a_computer_online_unless_disabled() -> None:
    assert computer_state_when_connected(disabled=False) == "online"
    assert computer_state_when_connected(disabled=True) == "disabled"


def test_disconnecting_makes_a_computer_offline_unless_disabled() -> None:
    assert computer_state_when_disconnected(disabled=False) == "offline"
    assert computer_state_when_disconnected(disabled=True) == "disabled"


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ("offline", "online", "computer.online"),
        ("disabled", "online", "computer.online"),
        ("online", "offline", "computer.offline"),
        ("online", "online", None),
        ("offline", "offline", None),
        ("online", "disabled", "computer.offline"),
        ("disabled", "offline", None),
        ("offline", "disabled", None),
    ],
)
def test_computer_events_only_on_a_real_change(before: str, after: str, expected: str | None) -> None:
    assert computer_event_type(before, after) == expected


def test_switching_a_computer_off_and_on() -> None:
    assert computer_state_when_switched(enabled=False) == "disabled"
    assert computer_state_when_switched(enabled=True) == "offline"


def test_only_the_replica_holding_the_connection_can_end_it() -> None:
    assert disconnect_applies("gw-a", "gw-a")
    assert not disconnect_applies("gw-b", "gw-a")
    assert not disconnect_applies(None, "gw-a")


def reported(state: str, detail: str = "", *reasons: str) -> PrinterCondition:
    return PrinterCondition(state, reasons, detail)


def test_printer_is_online_only_when_computer_online_and_spooler_ready() -> None:
    assert printer_condition("online", reported("online")) == reported("online")
    assert printer_condition("online", reported("online", "Toner low", "toner-low")) == reported(
        "online", "Toner low", "toner-low"
    )


def test_printer_offline_says_why() -> None:
    assert printer_condition("offline", reported("online")) == reported("offline", DETAIL_COMPUTER_OFFLINE)
    assert printer_condition("disabled", reported("online")) == reported("offline", DETAIL_COMPUTER_DISABLED)
    assert printer_condition("online", reported("offline")) == reported("offline", DETAIL_SPOOLER_STOPPED)
    assert printer_condition("online", reported("offline", "Paper jam")) == reported("offline", "Paper jam")


def test_a_computer_that_is_not_online_leaves_its_printers_no_reasons() -> None:
    """Reasons reported before the agent left may have cleared since: nobody can tell."""
    jammed = reported("offline", "Paper jam", "media-jam")
    assert printer_condition("offline", jammed).reasons == ()
    assert printer_condition("disabled", jammed).reasons == ()


def test_reasons_without_a_sentence_get_one() -> None:
    assert printer_condition("online", reported("online", "", "toner-low")).detail == "The printer reports toner low"
    assert printer_condition("online", reported("offline", "", "door-open", "media-empty")).detail == (
        "The printer reports a door is open, out of paper"
    )
