"""Agent connections, as the agent-gateway reports them: connects with their full report, beats,
disconnects and printer reports.

Each locks the computer row, so connect, disconnect and reports of one computer apply one after
the other.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import ApiError, found
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.reports import ReportedComputer, ReportedPrinter
from printcloud.devices.domain.states import (
    computer_state_when_connected,
    computer_state_when_disconnected,
    disconnect_applies,
)
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow, PrinterRow
from printcloud.devices.use_cases.state_changes import (
    COMPUTER,
    reconcile_printers,
    scope_of,
    set_computer_state,
    take_offline,
)

Decided = TypeVar("Decided")


@dataclass(frozen=True)
class Agents:
    db: Database

    async def agent_connected(self, hello: AgentHello) -> ComputerRow:
        """Records a new agent connection and its full report; returns the updated computer."""
        async with self.db.transaction() as session:
            return await _connect(session, await repository.lock_computers(session, [hello.computer_id]), hello)

    async def agents_connected(self, hellos: Sequence[AgentHello]) -> list[ComputerRow | ApiError]:
        """The connections of many agents, in one transaction, each as `agent_connected` records
        it; a computer deleted meanwhile is refused alone."""
        async with self.db.transaction() as session:
            locked = await repository.lock_computers(session, {hello.computer_id for hello in hellos})
            return [await _each(_connect(session, locked, hello)) for hello in hellos]

    async def agents_seen(self, computer_ids: Sequence[uuid.UUID]) -> None:
        """A gateway replica still holds these computers' agents. One that was deleted meanwhile
        is skipped: its agent is being disconnected, and the others' beat must not fail for it."""
        async with self.db.transaction() as session:
            await repository.touch_computers(session, computer_ids, utcnow())

    async def agent_disconnected(self, computer_id: uuid.UUID, gateway_instance: str) -> bool:
        """Marks the computer and its printers offline; False when another replica holds it now."""
        goodbye = AgentGoodbye(computer_id, gateway_instance)
        async with self.db.transaction() as session:
            return await _disconnect(session, await repository.lock_computers(session, [goodbye.computer_id]), goodbye)

    async def agents_disconnected(self, goodbyes: Sequence[AgentGoodbye]) -> list[bool | ApiError]:
        """The disconnections of many agents, in one transaction, each as `agent_disconnected`
        records it."""
        async with self.db.transaction() as session:
            locked = await repository.lock_computers(session, {goodbye.computer_id for goodbye in goodbyes})
            return [await _each(_disconnect(session, locked, goodbye)) for goodbye in goodbyes]

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


async def _connect(session: AsyncSession, locked: dict[uuid.UUID, ComputerRow], hello: AgentHello) -> ComputerRow:
    """`locked`: the computers the transaction holds, brought up to date as they change, so that
    a computer twice in one batch (a connection replaced at once) sees its first change."""
    computer = found(locked.get(hello.computer_id), COMPUTER)
    state = computer_state_when_connected(computer.disabled)
    report = hello.computer
    values = {
        "hostname": report.hostname,
        "os": report.os,
        "os_version": report.os_version,
        "arch": report.arch,
        "agent_version": report.agent_version,
        "last_seen_at": utcnow(),
        "gateway_instance": hello.gateway_instance,
    }
    locked[computer.id] = await set_computer_state(session, computer, state, values)
    await reconcile_printers(session, scope_of(computer), computer.id, state, hello.printers)
    return locked[computer.id]


async def _disconnect(session: AsyncSession, locked: dict[uuid.UUID, ComputerRow], goodbye: AgentGoodbye) -> bool:
    computer = found(locked.get(goodbye.computer_id), COMPUTER)
    if not disconnect_applies(computer.gateway_instance, goodbye.gateway_instance):
        return False
    state = computer_state_when_disconnected(computer.disabled)
    locked[computer.id] = await take_offline(session, computer, state, {})
    return True


async def _each(decided: Awaitable[Decided]) -> Decided | ApiError:
    """One item of a batch: its answer, or the refusal that it alone gets. A refusal comes before
    the item wrote anything, so the batch's transaction goes on for the others."""
    try:
        return await decided
    except ApiError as refused:
        return refused
