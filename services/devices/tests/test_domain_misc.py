"""Credentials, scopes, event data and the virtual computer's definition."""

from __future__ import annotations

import hashlib
import uuid

import pytest

from printcloud.contracts.errors import ApiError
from printcloud.core.scope import Scope, parse_scope
from printcloud.devices.domain import events
from printcloud.devices.domain.credentials import (
    hash_agent_credential,
    looks_like_agent_credential,
    mint_agent_credential,
)
from printcloud.devices.domain.states import PrinterCondition
from printcloud.devices.domain.virtual_computer import printer_os, virtual_computer_report, virtual_printer_reports


def test_credentials_are_prefixed_random_and_hashed_with_sha256() -> None:
    first, second = mint_agent_credential(), mint_agent_credential()
    assert first.startswith("pca_") and len(first) > 40
    assert first != second
    assert hash_agent_credential(first) == hashlib.sha256(first.encode()).hexdigest()
    assert looks_like_agent_credential(first)
    assert not looks_like_agent_credential("pca_")
    assert not looks_like_agent_credential("sk_live_abc")


def test_scope_parsing_rejects_malformed_scopes() -> None:
    organization = uuid.uuid4()
    assert parse_scope(str(organization), "test") == Scope(organization, "test")
    for org, mode in [("not-a-uuid", "live"), (str(organization), "staging"), (str(organization), "")]:
        with pytest.raises(ApiError) as caught:
            parse_scope(org, mode)
        assert caught.value.code == "invalid_request"


def test_events_carry_the_scope_and_the_documented_data() -> None:
    scope = Scope(uuid.uuid4(), "test")
    printer, computer = uuid.uuid4(), uuid.uuid4()
    jammed = PrinterCondition("offline", ("door-open", "media-jam"), "The printer reports a paper jam")
    message = events.printer_state_changed(scope, printer, computer, jammed)
    expected_envelope = ("printer.offline", str(scope.organization_id), "test")
    assert (message.type, message.organization_id, message.mode) == expected_envelope
    condition = {
        "state": "offline",
        "stateReasons": ["door-open", "media-jam"],
        "stateDetail": "The printer reports a paper jam",
    }
    assert message.data == {"id": str(printer), "computerId": str(computer), **condition}
    added = events.printer_added(scope, printer, computer, "office", "Office", jammed)
    assert added.data == {
        "id": str(printer),
        "computerId": str(computer),
        "name": "office",
        "displayName": "Office",
        **condition,
    }
    updated = events.printer_updated(scope, printer, computer, jammed, {"osName": {"from": "A", "to": "B"}})
    assert updated.data == {
        "id": str(printer),
        "computerId": str(computer),
        **condition,
        "changes": {"osName": {"from": "A", "to": "B"}},
    }
    removed = events.printer_removed(scope, printer, computer, "office")
    assert removed.data == {"id": str(printer), "computerId": str(computer), "name": "office"}
    online = events.computer_state_changed(scope, "computer.online", computer, "Desk", "online")
    assert online.data == {"id": str(computer), "name": "Desk", "state": "online"}


def test_the_virtual_computer_has_four_distinct_valid_printers() -> None:
    printers = virtual_printer_reports()
    assert len({p.name for p in printers}) == 4
    assert all(p.state == "online" and p.capabilities for p in printers)
    assert virtual_computer_report().os == "virtual"


def test_virtual_printers_apply_the_option_rules_of_the_os_they_emulate() -> None:
    assert printer_os("virtual", True, "virtual-windows") == "windows"
    assert printer_os("virtual", True, "virtual-photo") == "macos"
    assert printer_os("linux", False, "virtual-windows") == "linux"
