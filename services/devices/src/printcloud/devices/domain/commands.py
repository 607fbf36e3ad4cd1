"""The agent commands devices publishes on `printcloud.agent-commands` (key: computer id)."""

from __future__ import annotations

import uuid

from printcloud.core.kafka import agent_commands
from printcloud.core.kafka.envelope import Message
from printcloud.core.scope import Scope


def disconnect_computer(scope: Scope, computer_id: uuid.UUID) -> Message:
    """The agent-gateway replica holding the computer's agent closes it with 4403."""
    return agent_commands.command(
        agent_commands.COMPUTER_DISCONNECT,
        str(scope.organization_id),
        scope.mode,
        agent_commands.ComputerCommand(computer_id=str(computer_id)),
    )
