"""One agent's WebSocket, shared by its own receive loop and the Kafka command handler."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from printcloud.agent_gateway.domain.file_tokens import ComputerScope

log = logging.getLogger(__name__)


class AgentConnection:
    def __init__(self, websocket: WebSocket, computer: ComputerScope) -> None:
        self.websocket = websocket
        self.computer = computer
        self.computer_id = computer.computer_id
        # Messages come from several tasks; one frame at a time, and nothing after the close.
        self.lock = asyncio.Lock()
        self.closed = False

    async def send(self, message: dict[str, Any]) -> bool:
        """False when the agent is gone; the caller decides whether that matters."""
        async with self.lock:
            return await self.send_unlocked(message)

    async def send_unlocked(self, message: dict[str, Any]) -> bool:
        if self.closed:
            return False
        try:
            await self.websocket.send_json(message)
        except (WebSocketDisconnect, RuntimeError, OSError):
            self.closed = True
            return False
        return True

    async def close(self, code: int, reason: str) -> None:
        async with self.lock:
            if self.closed:
                return
            self.closed = True
            try:
                await self.websocket.close(code, reason)
            except (WebSocketDisconnect, RuntimeError, OSError):
                log.debug("socket already gone", extra={"computer_id": self.computer_id})
