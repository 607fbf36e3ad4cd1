"""The domain events devices publishes on `printcloud.domain-events`, and their `data`."""

from __future__ import annotations

import uuid
from typing import Any

from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope
from printcloud.devices.domain.states import PrinterCondition


def _event(scope: Scope, event_type: str, data: dict[str, Any]) -> Message:
    return Message(type=event_type, organization_id=str(scope.organization_id), mode=scope.mode, data=data)


def computer_state_changed(scope: Scope, event_type: str, computer_id: uuid.UUID, name: str, state: str) -> Message:
    return _event(scope, event_type, {"id": str(computer_id), "name": name, "state": state})


def _condition(condition: PrinterCondition) -> dict[str, Any]:
    return {"state": condition.state, "stateReasons": list(condition.reasons), "stateDetail": condition.detail}


def printer_added(
    scope: Scope,
    printer_id: uuid.UUID,
    computer_id: uuid.UUID,
    name: str,
    display_name: str,
    condition: PrinterCondition,
) -> Message:
    return _event(
        scope,
        "printer.added",
        {
            "id": str(printer_id),
            "computerId": str(computer_id),
            "name": name,
            "displayName": display_name,
            **_condition(condition),
        },
    )


def printer_removed(scope: Scope, printer_id: uuid.UUID, computer_id: uuid.UUID, name: str) -> Message:
    return _event(scope, "printer.removed", {"id": str(printer_id), "computerId": str(computer_id), "name": name})


def printer_state_changed(
    scope: Scope, printer_id: uuid.UUID, computer_id: uuid.UUID, condition: PrinterCondition
) -> Message:
    """`printer.online` or `printer.offline`, after the state it entered."""
    return _event(
        scope,
        f"printer.{condition.state}",
        {"id": str(printer_id), "computerId": str(computer_id), **_condition(condition)},
    )


def printer_updated(
    scope: Scope,
    printer_id: uuid.UUID,
    computer_id: uuid.UUID,
    condition: PrinterCondition,
    changes: dict[str, dict[str, Any]],
) -> Message:
    """What changed, beside the printer's condition as it stands (so that a reader of
    `printer.*` events alone always knows it)."""
    return _event(
        scope,
        "printer.updated",
        {"id": str(printer_id), "computerId": str(computer_id), **_condition(condition), "changes": changes},
    )
