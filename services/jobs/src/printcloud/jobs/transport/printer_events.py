"""Consumes devices' `printer.*` events from `printcloud.domain-events` into the read model of
printer conditions; every other event on the topic is none of its business."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from printcloud.contracts import events
from printcloud.contracts.field_names import public_name
from printcloud.core.db.database import Database
from printcloud.core.ids import parse_uuid
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import MODES, Scope
from printcloud.core.timeutil import parse_iso
from printcloud.jobs.domain.printer_conditions import REMOVED, PrinterCondition, PrinterConditionChange
from printcloud.jobs.use_cases.printer_conditions import record_printer_changes
from printcloud.protocol.printer_reasons import normalised_reasons

log = logging.getLogger(__name__)

# The events whose data carries the printer's condition (`events.PrinterCondition`).
CONDITION_EVENTS = frozenset({"printer.added", "printer.online", "printer.offline", "printer.updated"})
PRINTER_REMOVED = "printer.removed"

_STATE = public_name(events.PrinterCondition, lambda condition: condition.state)
_CONDITION_FIELDS = frozenset(field.alias or name for name, field in events.PrinterCondition.model_fields.items())
_CHANGES = public_name(events.PrinterUpdatedData, lambda data: data.changes)
# Devices releases before printer conditions sent a state and its detail, without reasons.
_SENT_BEFORE_REASONS = {
    public_name(events.PrinterCondition, lambda condition: condition.stateReasons): [],
    public_name(events.PrinterCondition, lambda condition: condition.stateDetail): "",
}


def _condition(data: Mapping[str, Any]) -> PrinterCondition | None:
    """The condition an event's data carries, read by the contract's model; None when there is none
    or it is malformed."""
    if _STATE not in data:
        return None  # a `printer.updated` of a devices release that did not send the condition
    sent = {name: value for name, value in data.items() if name in events.PrinterCondition.model_fields}
    try:
        # Lax: the state arrives as text, which strict validation takes only as the enum itself.
        condition = events.PrinterCondition.model_validate({**_SENT_BEFORE_REASONS, **sent}, strict=False)
    except ValidationError:
        return None
    return PrinterCondition(condition.state, tuple(normalised_reasons(condition.stateReasons)), condition.stateDetail)


def printer_change(message: Message) -> PrinterConditionChange | None:
    """The change a message announces; None for other events and for malformed ones, which a
    consumer retrying forever would never get past."""
    if message.type not in CONDITION_EVENTS and message.type != PRINTER_REMOVED:
        return None
    data = message.data
    scope, message_id = _scope_of(message), parse_uuid(message.id)
    printer_id, at = parse_uuid(str(data.get("id", ""))), parse_iso(message.timestamp)
    if scope is None or message_id is None or printer_id is None or at is None:
        log.error("printer event without valid ids, mode or time skipped", extra={"message_id": message.id})
        return None
    condition = PrinterCondition(REMOVED) if message.type == PRINTER_REMOVED else _condition(data)
    if condition is None:
        return None
    return PrinterConditionChange(message_id, scope, printer_id, at, condition)


def _scope_of(message: Message) -> Scope | None:
    organization_id = parse_uuid(message.organization_id)
    if organization_id is None or message.mode not in MODES:
        return None
    return Scope(organization_id, message.mode)


def scope_of_settings_change(message: Message) -> Scope | None:
    """The scope of a printer whose settings (what a create reads of it) the message may have
    changed: one added or removed, or updated in more than its condition. An update that names no
    changes (an older devices release) may have changed anything."""
    if message.type == "printer.updated":
        changed = message.data.get(_CHANGES)
        if isinstance(changed, Mapping) and changed and all(name in _CONDITION_FIELDS for name in changed):
            return None
    elif message.type not in ("printer.added", PRINTER_REMOVED):
        return None
    return _scope_of(message)


class PrinterEventsHandler:
    """A `printcloud.core.kafka.bus.Consumer` handler, one message or a poll's batch in one transaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    def wants(message_type: str) -> bool:
        """The events read at all: the printers'; every other one is passed over undecoded."""
        return message_type in CONDITION_EVENTS or message_type == PRINTER_REMOVED

    async def __call__(self, message: Message) -> None:
        await self.handle_batch([message])

    async def handle_batch(self, messages: Sequence[Message]) -> None:
        changes = [change for change in map(printer_change, messages) if change is not None]
        settings_changed = {scope for scope in map(scope_of_settings_change, messages) if scope is not None}
        if changes or settings_changed:
            await record_printer_changes(self.db, changes, settings_changed)
