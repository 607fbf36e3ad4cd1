"""Computer and printer state rules."""

from __future__ import annotations

import pytest

from printcloud.devices.domain.states import (
    DETAIL_COMPUTER_DISABLED,
    DETAIL_COMPUTER_OFFLINE,
    DETAIL_SPOOLER_STOPPED,
    computer_event_type,
    computer_state_when_connected,
    computer_state_when_disconnected,
    computer_state_when_switched,
    disconnect_applies,
    printer_state,
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


def test_printer_is_online_only_when_computer_online_and_spooler_ready() -> None:
    assert printer_state("online", "online", "") == ("online", "")
    assert printer_state("online", "online", "Toner low") == ("online", "Toner low")


def test_printer_offline_says_why() -> None:
    assert printer_state("offline", "online", "") == ("offline", DETAIL_COMPUTER_OFFLINE)
    assert printer_state("disabled", "online", "") == ("offline", DETAIL_COMPUTER_DISABLED)
    assert printer_state("online", "offline", "") == ("offline", DETAIL_SPOOLER_STOPPED)
    assert printer_state("online", "offline", "Paper jam") == ("offline", "Paper jam")
