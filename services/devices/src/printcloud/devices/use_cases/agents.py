"""Agent connections, as the agent-gateway reports them: connects with their full report, beats,
disconnects and printer reports.

Each locks the computer row, so connect, disconnect and reports of one computer apply one after
the other.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from printcloud.contracts.errors import ApiError, found
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.printers import reconcile
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import computer_state_when_connected, disconnect_applies
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow, PrinterRow
from printcloud.devices.use_cases.agent_batches import AgentBatch, apply_in_rounds
from printcloud.devices.use_cases.state_changes import COMPUTER, reconcile_printers, scope_of

Decided = TypeVar("Decided")


@dataclass(frozen=True)
class Agents:
    db: Database

    async def agent_connected(self, hello: AgentHello) -> ComputerRow:
        """Records a new agent connection and its full report; returns the updated computer."""
        return _alone(await self.agents_connected([hello]))

    async def agents_connected(self, hellos: Sequence[AgentHello]) -> list[ComputerRow | ApiError]:
        """The connections of many agents, in one transaction, each as `agent_connected` records
        it; a computer deleted meanwhile is refused alone."""
        async with self.db.driver_transaction() as tx:
            return await apply_in_rounds(tx, hellos, _connect, utcnow())

    async def agents_seen(self, computer_ids: Sequence[uuid.UUID]) -> None:
        """A gateway replica still holds these computers' agents. One that was deleted meanwhile
        is skipped: its agent is being disconnected, and the others' beat must not fail for it."""
        async with self.db.transaction() as session:
            await repository.touch_computers(session, computer_ids, utcnow())

    async def agent_disconnected(self, computer_id: uuid.UUID, gateway_instance: str) -> bool:
        """Marks the computer and its printers offline; False when another replica holds it now."""
        return _alone(await self.agents_disconnected([AgentGoodbye(computer_id, gateway_instance)]))

    async def agents_disconnected(self, goodbyes: Sequence[AgentGoodbye]) -> list[bool | ApiError]:
        """The disconnections of many agents, in one transaction, each as `agent_disconnected`
        records it."""
        async with self.db.driver_transaction() as tx:
            return await apply_in_rounds(tx, goodbyes, _disconnect, utcnow())

    async def report_printers(self, computer_id: uuid.UUID, reports: Sequence[ReportedPrinter]) -> list[PrinterRow]:
        """Applies a full printer report of a connected agent; returns the computer's printers."""
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer(session, computer_id), COMPUTER)
            await reconcile_printers(session, scope_of(computer), computer_id, computer.state, reports)
            return await repository.printers_of_computer(session, computer_id)


@dataclass(frozen=True)
class AgentHello:
    """An agent's connection to a gateway replica, with its full report."""

    computer_id: uuid.UUID
    computer: ReportedComputer
    printers: Sequence[ReportedPrinter]
    gateway_instance: str


@dataclass(frozen=True)
class AgentGoodbye:
    """The end of an agent's connection to a gateway replica."""

    computer_id: uuid.UUID
    gateway_instance: str


def _connect(batch: AgentBatch, hello: AgentHello) -> ComputerRow:
    computer = found(batch.computers.get(hello.computer_id), COMPUTER)
    state = computer_state_when_connected(computer.disabled)
    # Worked out first: a report refused leaves the computer as it was.
    plan = reconcile(batch.printers[computer.id], hello.printers, state)
    report = hello.computer
    values = {
        "hostname": report.hostname,
        "os": report.os,
        "os_version": report.os_version,
        "arch": report.arch,
        "agent_version": report.agent_version,
        "last_seen_at": batch.now,
        "gateway_instance": hello.gateway_instance,
    }
    updated = batch.set_computer_state(computer, state, values)
    batch.apply_reconciliation(computer, plan)
    return updated


def _disconnect(batch: AgentBatch, goodbye: AgentGoodbye) -> bool:
    computer = found(batch.computers.get(goodbye.computer_id), COMPUTER)
    if not disconnect_applies(computer.gateway_instance, goodbye.gateway_instance):
        return False
    batch.take_offline(computer)
    return True


def _alone(answers: list[Decided | ApiError]) -> Decided:
    """The answer of a batch of one, raising its refusal."""
    (answer,) = answers
    if isinstance(answer, ApiError):
        raise answer
    return answer
