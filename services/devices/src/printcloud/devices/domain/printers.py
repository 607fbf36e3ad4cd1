"""Reconciling the printers a computer reports with the printers we know.

Printers are matched by `name`. A reported printer we do not know is added; a known one is
updated in place (a printer that was removed and comes back keeps its id and its settings); a
known printer missing from the report is removed. Only reported facts are written: the
settings users own (`displayName`, `enabled`, `defaultOptions`, `customPapers`, `remarks`)
are set from the report at creation at most.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from printcloud.contracts.field_names import public_name
from printcloud.contracts.resources import Printer
from printcloud.devices.domain.reports import ReportedPrinter, validate_printer_reports
from printcloud.devices.domain.states import PrinterCondition, printer_condition

# Reported facts whose change is announced as `printer.updated`: column -> public field name.
TRACKED_FIELDS = {
    "os_name": public_name(Printer, lambda printer: printer.osName),
    "description": public_name(Printer, lambda printer: printer.description),
    "is_default": public_name(Printer, lambda printer: printer.isDefault),
    "capabilities": public_name(Printer, lambda printer: printer.capabilities),
}
_STATE_REASONS = public_name(Printer, lambda printer: printer.stateReasons)
_STATE_DETAIL = public_name(Printer, lambda printer: printer.stateDetail)


@dataclass(frozen=True)
class KnownPrinter:
    id: uuid.UUID
    name: str
    display_name: str
    os_name: str
    description: str
    is_default: bool
    state: str
    state_detail: str
    capabilities: dict[str, Any]
    removed: bool = False
    state_reasons: tuple[str, ...] = ()

    @property
    def condition(self) -> PrinterCondition:
        return PrinterCondition(self.state, self.state_reasons, self.state_detail)


@dataclass(frozen=True)
class NewPrinter:
    report: ReportedPrinter
    condition: PrinterCondition


@dataclass(frozen=True)
class PrinterUpdate:
    """Column values to write to a known printer, and what the change means for events."""

    printer: KnownPrinter
    values: dict[str, Any]
    condition: PrinterCondition
    changes: dict[str, dict[str, Any]] = field(default_factory=dict)
    state_changed: bool = False
    revived: bool = False


@dataclass(frozen=True)
class Reconciliation:
    added: list[NewPrinter]
    updated: list[PrinterUpdate]
    removed: list[KnownPrinter]


def condition_values(condition: PrinterCondition) -> dict[str, Any]:
    return {"state": condition.state, "state_reasons": list(condition.reasons), "state_detail": condition.detail}


def _condition_changes(printer: KnownPrinter, condition: PrinterCondition) -> dict[str, dict[str, Any]]:
    """`stateReasons` and `stateDetail` as `printer.updated` announces them: only when the state
    stays, since `printer.online` or `printer.offline` carries the new condition otherwise."""
    if condition.state != printer.state:
        return {}
    changes: dict[str, dict[str, Any]] = {}
    if condition.reasons != printer.state_reasons:
        changes[_STATE_REASONS] = {"from": list(printer.state_reasons), "to": list(condition.reasons)}
    if condition.detail != printer.state_detail:
        changes[_STATE_DETAIL] = {"from": printer.state_detail, "to": condition.detail}
    return changes


def _condition_update(printer: KnownPrinter, condition: PrinterCondition) -> PrinterUpdate | None:
    if not condition.differs_from(printer.state, printer.state_reasons, printer.state_detail):
        return None
    return PrinterUpdate(
        printer,
        condition_values(condition),
        condition,
        changes=_condition_changes(printer, condition),
        state_changed=condition.state != printer.state,
    )


def _update_from_report(printer: KnownPrinter, report: ReportedPrinter, computer_state: str) -> PrinterUpdate | None:
    condition = printer_condition(computer_state, report.condition())
    reported = {
        "os_name": report.os_name,
        "description": report.description,
        "is_default": report.is_default,
        "capabilities": report.capabilities,
    }
    current = {column: getattr(printer, column) for column in TRACKED_FIELDS}
    changes = {
        TRACKED_FIELDS[column]: {"from": current[column], "to": value}
        for column, value in reported.items()
        if current[column] != value
    }
    condition_changed = condition.differs_from(printer.state, printer.state_reasons, printer.state_detail)
    if not (changes or condition_changed or printer.removed):
        return None
    values = {**reported, **condition_values(condition)}
    if printer.removed:
        values["removed_at"] = None
    return PrinterUpdate(
        printer,
        values,
        condition,
        changes={**changes, **_condition_changes(printer, condition)},
        state_changed=condition.state != printer.state,
        revived=printer.removed,
    )


def reconcile(known: Sequence[KnownPrinter], reports: Sequence[ReportedPrinter], computer_state: str) -> Reconciliation:
    """The changes that make the stored printers of one computer match its full report."""
    validate_printer_reports(reports)
    by_name: dict[str, KnownPrinter] = {}
    for printer in known:
        # A printer in use wins over a removed one of the same name.
        if printer.name not in by_name or by_name[printer.name].removed:
            by_name[printer.name] = printer
    reported_names = {r.name for r in reports}
    added: list[NewPrinter] = []
    updated: list[PrinterUpdate] = []
    for report in reports:
        existing = by_name.get(report.name)
        if existing is None:
            added.append(NewPrinter(report, printer_condition(computer_state, report.condition())))
        elif (update := _update_from_report(existing, report, computer_state)) is not None:
            updated.append(update)
    removed = [p for p in by_name.values() if not p.removed and p.name not in reported_names]
    return Reconciliation(added, updated, removed)


def settle_on_computer_state(known: Sequence[KnownPrinter], computer_state: str) -> list[PrinterUpdate]:
    """The printer changes a computer state change implies without a fresh report (disconnect)."""
    updates = []
    for printer in known:
        if printer.removed:
            continue
        update = _condition_update(printer, printer_condition(computer_state, printer.condition))
        if update is not None:
            updates.append(update)
    return updates
