"""Agent credentials: minting one for a computer (at enrolment, or for a virtual computer's agent)
and telling which computer a credential names."""

from __future__ import annotations

from collections.abc import Sequence
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
        (answer,) = await self.authenticate_agents([credential])
        if isinstance(answer, ApiError):
            raise answer
        return answer

    async def authenticate_agents(self, credentials: Sequence[str]) -> list[AgentRow | ApiError]:
        """What `authenticate_agent` answers for each credential, read in one statement."""
        hashes = [hash_agent_credential(c) if looks_like_agent_credential(c) else None for c in credentials]
        wanted = {token_hash for token_hash in hashes if token_hash is not None}
        found: dict[str, AgentRow] = {}
        if wanted:
            async with self.db.read() as session:
                found = await repository.find_agents(session, wanted)
        answers: list[AgentRow | ApiError] = []
        for token_hash in hashes:
            row = found.get(token_hash) if token_hash is not None else None
            answers.append(_unauthorized() if row is None else row)
        return answers


def _unauthorized() -> ApiError:
    return ApiError("unauthorized", "Unknown or revoked agent credential.")
