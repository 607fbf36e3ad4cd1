"""Computers as their organization manages them: reading, enrolling (with an admin key; pairing
codes are `pairing.py`), renaming, disabling and re-enabling, deleting."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import ApiError, found
from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.computer_settings import enrolment_names
from printcloud.devices.domain.states import computer_state_when_switched
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.use_cases.agent_credentials import issue_agent_credential
from printcloud.devices.use_cases.state_changes import (
    COMPUTER,
    delete_computer,
    disconnect_agent,
    set_computer_state,
    take_offline,
)


async def create_enrolled_computer(
    session: AsyncSession, scope: Scope, name: str, hostname: str
) -> tuple[ComputerRow, str]:
    """A new computer in `scope` and its first agent credential (plaintext), whichever way it enrols."""
    name, hostname = enrolment_names(name, hostname)
    computer = await repository.insert_computer(session, scope, name or hostname, hostname, utcnow())
    return computer, await issue_agent_credential(session, computer, replace=False)


@dataclass(frozen=True)
class Computers:
    db: Database

    async def list_computers(self, scope: Scope, page: PageRequest) -> Page[ComputerRow]:
        async with self.db.read() as session:
            return await repository.list_computers(session, scope, page)

    async def get_computer(self, scope: Scope, computer_id: uuid.UUID) -> ComputerRow:
        return found(await repository.get_computer(self.db, scope, computer_id), COMPUTER)

    async def enroll_computer(self, scope: Scope, name: str, hostname: str) -> tuple[ComputerRow, str]:
        """Creates a computer in `scope` and returns it with its first agent credential (plaintext)."""
        async with self.db.transaction() as session:
            return await create_enrolled_computer(session, scope, name, hostname)

    async def update_computer(
        self, scope: Scope, computer_id: uuid.UUID, name: str | None, enabled: bool | None
    ) -> ComputerRow:
        """Renames and disables or re-enables a computer; returns it.

        Disabling disconnects its agent at once (and AuthenticateAgent refuses it until re-enabled);
        re-enabling leaves it offline until the agent's next connection makes it online.
        """
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer_in_scope(session, scope, computer_id), COMPUTER)
            values: dict[str, Any] = {} if name is None else {"name": name}
            if enabled is None or enabled != computer.disabled:
                return await set_computer_state(session, computer, computer.state, values)
            state = computer_state_when_switched(enabled)
            updated = await take_offline(session, computer, state, {**values, "disabled": not enabled})
            if not enabled:
                await disconnect_agent(session, computer)
        return updated

    async def delete_computer(self, scope: Scope, computer_id: uuid.UUID) -> None:
        """Soft-deletes a computer and its printers, revokes its agent credentials, disconnects it."""
        async with self.db.transaction() as session:
            computer = found(await repository.lock_computer_in_scope(session, scope, computer_id), COMPUTER)
            if computer.is_virtual:
                raise ApiError("conflict", "The test-mode virtual computer cannot be deleted.")
            await delete_computer(session, computer, utcnow())
