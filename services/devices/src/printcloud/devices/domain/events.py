"""The domain events devices publishes on `printcloud.domain-events`, their `data` built by the
event's contract model, so that it is what a webhook's receiver is promised."""

from __future__ import annotations

import uuid
from typing import Any

from printcloud.contracts import events
from printcloud.contracts.base import Contract
from printcloud.contracts.enums import ComputerState, PrinterState
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope
from printcloud.devices.domain.states import PrinterCondition


def _event(scope: Scope, event_type: str, data: Contract) -> Message:
    return Message(
        type=event_type,
        organization_id=str(scope.organization_id),
        mode=scope.mode,
        data=data.model_dump(mode="json", by_alias=True),
    )


def computer_state_changed(scope: Scope, event_type: str, computer_id: uuid.UUID, name: str, state: str) -> Message:
    data = events.ComputerEventData(id=str(computer_id), name=name, state=ComputerState(state))
    return _event(scope, event_type, data)


def printer_added(
    scope: Scope,
    printer_id: uuid.UUID,
    computer_id: uuid.UUID,
    name: str,
    display_name: str,
    condition: PrinterCondition,
) -> Message:
    data = events.PrinterAddedData(
        id=str(printer_id),
        computerId=str(computer_id),
        name=name,
        displayName=display_name,
        state=PrinterState(condition.state),
        stateReasons=list(condition.reasons),
        stateDetail=condition.detail,
    )
    return _event(scope, "printer.added", data)


def printer_removed(scope: Scope, printer_id: uuid.UUID, computer_id: uuid.UUID, name: str) -> Message:
    data = events.PrinterRemovedData(id=str(printer_id), computerId=str(computer_id), name=name)
    return _event(scope, "printer.removed", data)


def printer_state_changed(
    scope: Scope, printer_id: uuid.UUID, computer_id: uuid.UUID, condition: PrinterCondition
) -> Message:
    """`printer.online` or `printer.offline`, after the state it entered."""
    data = events.PrinterStateData(
        id=str(printer_id),
        computerId=str(computer_id),
        state=PrinterState(condition.state),
        stateReasons=list(condition.reasons),
        stateDetail=condition.detail,
    )
    return _event(scope, f"printer.{condition.state}", data)


def printer_updated(
    scope: Scope,
    printer_id: uuid.UUID,
    computer_id: uuid.UUID,
    condition: PrinterCondition,
    changes: dict[str, dict[str, Any]],
) -> Message:
    """What changed, beside the printer's condition as it stands (so that a reader of
    `printer.*` events alone always knows it)."""
    data = events.PrinterUpdatedData(
        id=str(printer_id),
        computerId=str(computer_id),
        state=PrinterState(condition.state),
        stateReasons=list(condition.reasons),
        stateDetail=condition.detail,
        changes={field: events.FieldChange.model_validate(change) for field, change in changes.items()},
    )
    return _event(scope, "printer.updated", data)
