"""Agent credentials: minting one for a computer (at enrolment, or for a virtual computer's agent)
and telling which computer a credential names."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.contracts.errors import ApiError
from printcloud.core.db.database import Database
from printcloud.core.timeutil import utcnow
from printcloud.devices.domain.credentials import (
    hash_agent_credential,
    looks_like_agent_credential,
    mint_agent_credential,
)
from printcloud.devices.persistence import repository
from printcloud.devices.persistence.rows import AgentRow, ComputerRow
from printcloud.devices.use_cases.state_changes import scope_of


async def issue_agent_credential(session: AsyncSession, computer: ComputerRow, *, replace: bool) -> str:
    """Stores a new credential's hash and returns its plaintext, shown once; `replace` revokes the
    computer's other credentials first."""
    if replace:
        await repository.revoke_credentials(session, computer.id, utcnow())
    credential = mint_agent_credential()
    await repository.insert_credential(
        session, computer.id, scope_of(computer), hash_agent_credential(credential), utcnow()
    )
    return credential


@dataclass(frozen=True)
class AgentCredentials:
    db: Database

    async def authenticate_agent(self, credential: str) -> AgentRow:
        """The computer a credential names, and whether it is disabled."""
        unauthorized = ApiError("unauthorized", "Unknown or revoked agent credential.")
        if not looks_like_agent_credential(credential):
            raise unauthorized
        async with self.db.read() as session:
            row = await repository.find_agent(session, hash_agent_credential(credential))
        if row is None:
            raise unauthorized
        return row
