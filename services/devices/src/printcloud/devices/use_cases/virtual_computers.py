"""Test mode's virtual computer: creating it for an organization, and what the virtual fleet that
runs its agent needs (the computers to serve, a credential for each)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import ApiError, found
from printcloud.core.db.database import Database
from printcloud.core.scope import Scope
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.virtual_computer import (
    VIRTUAL_COMPUTER_MODE,
    VIRTUAL_COMPUTER_NAME,
    virtual_computer_report,
    virtual_printer_reports,
)
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import ComputerRow
from printcloud.devices.use_cases.agent_credentials import issue_agent_credential
from printcloud.devices.use_cases.state_changes import COMPUTER, reconcile_printers


async def ensure_virtual_computer(session: AsyncSession, organization_id: uuid.UUID) -> ComputerRow:
    """The organization's virtual computer, created offline with its four printers if missing."""
    existing = await repository.virtual_computer_of(session, organization_id)
    if existing is not None:
        return existing
    scope = Scope(organization_id, VIRTUAL_COMPUTER_MODE)
    created = await repository.insert_virtual_computer(
        session, scope, VIRTUAL_COMPUTER_NAME, virtual_computer_report(), utcnow()
    )
    if created is None:
        # Another transaction created it since the read above: the index refused this one.
        return found(await repository.virtual_computer_of(session, organization_id), COMPUTER)
    await reconcile_printers(session, scope, created.id, created.state, virtual_printer_reports())
    return created


@dataclass(frozen=True)
class VirtualComputers:
    db: Database

    async def ensure_virtual_computer(self, organization_id: uuid.UUID) -> ComputerRow:
        """The organization's virtual computer, created offline with its four printers if missing."""
        async with self.db.transaction() as session:
            return await ensure_virtual_computer(session, organization_id)

    async def list_virtual_computers(self) -> list[ComputerRow]:
        """Every organization's virtual computer, for the fleet process that serves them."""
        async with self.db.read() as session:
            return await repository.list_virtual_computers(session)

    async def issue_virtual_agent_credential(self, computer_id: uuid.UUID) -> str:
        """A fresh credential (plaintext, shown once) for a virtual computer's agent.

        The virtual fleet mints one at every start, so the computer's earlier ones are revoked: they
        must not pile up as live secrets. Any other computer is refused: its credential is its
        owner's, handed out only at enrolment.
        """
        async with self.db.transaction() as session:
            # Locked, so that two issues at once cannot both leave a credential live.
            computer = found(await repository.lock_computer(session, computer_id), COMPUTER)
            if not computer.is_virtual:
                raise ApiError("forbidden", "Only a test-mode virtual computer's agent credential is issued here.")
            return await issue_agent_credential(session, computer, replace=True)
