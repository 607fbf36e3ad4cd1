"""A batch of agent connections or disconnections, worked out on the rows its transaction locked
and written set-based: each statement covers the whole batch (`persistence.agent_batches`).

After an outage a gateway replica reports thousands of goodbyes and then hellos, hundreds a call;
a replica that died leaves all its computers to the sweep at once.
Written one computer at a time, each cost three statements and an event insert; a batch now costs
a handful of statements, however many computers it holds.

Each item is decided as the single-computer use cases decide it (`state_changes`), on the rows as
the items before it in the batch left them, and a refusal comes before the item changed anything.
A computer met a second time in a batch waits for a later round, after the first round is
written, so it sees its printers as the first change left them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol, TypeVar

from printcloud.contracts.errors import ApiError
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.kafka.envelope import Message
from printcloud.core.kafka.outbox import outbox_row
from printcloud.core.kafka.topics import DOMAIN_EVENTS
from printcloud.devices.domain import events
from printcloud.devices.domain.printers import KnownPrinter, PrinterUpdate, Reconciliation, settle_on_computer_state
from printcloud.devices.domain.states import computer_state_when_disconnected
from printcloud.devices.persistence import agent_batches, repository
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.persistence.tables import outbox
from printcloud.devices.use_cases.state_changes import (
    computer_state_message,
    printer_added_message,
    printer_update_messages,
    scope_of,
)


class _Addressed(Protocol):
    @property
    def computer_id(self) -> uuid.UUID: ...


Item = TypeVar("Item", bound=_Addressed)
Answer = TypeVar("Answer")


@dataclass
class AgentBatch:
    """The changes of one round of a batch: the computers it holds, as its items leave them, and
    what is to be written."""

    computers: dict[uuid.UUID, ComputerRow]
    printers: dict[uuid.UUID, list[KnownPrinter]]
    now: datetime
    _changed: dict[uuid.UUID, ComputerRow] = field(default_factory=dict)
    _new_printers: list[dict[str, Any]] = field(default_factory=list)
    _printer_changes: list[tuple[uuid.UUID, dict[str, Any]]] = field(default_factory=list)
    _removed_printers: list[uuid.UUID] = field(default_factory=list)
    _events: list[dict[str, Any]] = field(default_factory=list)

    def set_computer_state(self, computer: ComputerRow, state: str, values: dict[str, Any]) -> ComputerRow:
        updated = replace(computer, state=state, **values)
        self.computers[computer.id] = self._changed[computer.id] = updated
        message = computer_state_message(computer, state, updated.name)
        if message is not None:
            self._emit(computer.id, message)
        return updated

    def take_offline(self, computer: ComputerRow) -> None:
        """The computer's agent is gone: the computer and its printers go offline (or stay
        disabled)."""
        state = computer_state_when_disconnected(computer.disabled)
        self.set_computer_state(computer, state, {"gateway_instance": None})
        self.apply_printer_changes(computer, settle_on_computer_state(self.printers[computer.id], state))

    def apply_printer_changes(self, computer: ComputerRow, changes: Sequence[PrinterUpdate]) -> None:
        scope = scope_of(computer)
        for change in changes:
            self._printer_changes.append((change.printer.id, change.values))
            for message in printer_update_messages(scope, computer.id, change):
                self._emit(change.printer.id, message)

    def apply_reconciliation(self, computer: ComputerRow, plan: Reconciliation) -> None:
        scope = scope_of(computer)
        for new in plan.added:
            row = repository.new_printer(scope, computer.id, new.report, new.condition, self.now)
            self._new_printers.append(row)
            self._emit(row["id"], printer_added_message(scope, row["id"], computer.id, new))
        self.apply_printer_changes(computer, plan.updated)
        for gone in plan.removed:
            self._removed_printers.append(gone.id)
            self._emit(gone.id, events.printer_removed(scope, gone.id, computer.id, gone.name))

    def _emit(self, resource_id: uuid.UUID, message: Message) -> None:
        # Keyed by resource id, as `state_changes.emit` is, so one resource's events stay in order.
        self._events.append(outbox_row(DOMAIN_EVENTS, str(resource_id), message))

    async def write(self, tx: DriverTransaction) -> None:
        await agent_batches.write_computers(tx, list(self._changed.values()))
        await agent_batches.insert_printers(tx, self._new_printers)
        await agent_batches.update_printers(tx, self._printer_changes, self.now)
        await agent_batches.remove_printers(tx, self._removed_printers, self.now)
        await outbox.add_all(tx, self._events)


async def apply_in_rounds(
    tx: DriverTransaction,
    items: Sequence[Item],
    decide: Callable[[AgentBatch, Item], Answer],
    now: datetime,
) -> list[Answer | ApiError]:
    """Each item's answer from `decide`, or the refusal it alone gets; the changes written in
    rounds that hold each computer at most once."""
    locked = await agent_batches.lock_computers(tx, {item.computer_id for item in items})
    answers: dict[int, Answer | ApiError] = {}
    pending = list(enumerate(items))
    while pending:
        this_round: list[tuple[int, Item]] = []
        later: list[tuple[int, Item]] = []
        seen: set[uuid.UUID] = set()
        for index, item in pending:
            (later if item.computer_id in seen else this_round).append((index, item))
            seen.add(item.computer_id)
        held = {item.computer_id for _, item in this_round if item.computer_id in locked}
        batch = AgentBatch(locked, await agent_batches.printers_of_computers(tx, held), now)
        for index, item in this_round:
            try:
                answers[index] = decide(batch, item)
            except ApiError as refused:
                answers[index] = refused
        await batch.write(tx)
        pending = later
    return [answers[index] for index in range(len(items))]
