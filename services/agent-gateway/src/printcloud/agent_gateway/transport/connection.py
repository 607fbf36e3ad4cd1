"""One agent's WebSocket, shared by its own receive loop and the Kafka command handler.

Messages to the agent go through a bounded queue that a writer task of the connection's own
empties (started when a message is queued and ended once the queue is empty: an idle agent, the
usual one, holds no task for it): whoever sends (a command handler serving every agent of the replica) never waits for
one agent's network. An agent that does not keep up (its queue full, or one message not taken
within the send timeout) is dropped: its serving ends at once, the socket closes without a close
frame (none could reach an agent that reads nothing) once what is buffered drains, and the agent
sees 1006 and reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from printcloud.agent_gateway.domain.agent_limits import AgentLimits
from printcloud.agent_gateway.domain.file_tokens import ComputerScope
from printcloud.protocol.parsing import GatewayMessage

log = logging.getLogger(__name__)

_SOCKET_GONE = (WebSocketDisconnect, RuntimeError, OSError)
# A close frame carries at most 125 bytes: the code's two and a UTF-8 reason's 123. A longer one
# breaks the protocol, and the agent drops the connection without reading the code (1006).
MAX_CLOSE_REASON_BYTES = 123
_CUT = "…"


def fitted_close_reason(reason: str) -> str:
    """`reason` as a close frame can carry it: cut on a character boundary, marked where cut.
    Reasons can name fields of the agent's own message, which are as long as it made them."""
    encoded = reason.encode("utf-8", "replace")
    if len(encoded) <= MAX_CLOSE_REASON_BYTES:
        return reason
    room = MAX_CLOSE_REASON_BYTES - len(_CUT.encode())
    return encoded[:room].decode("utf-8", "ignore") + _CUT


class AgentConnection:
    def __init__(self, websocket: WebSocket, computer: ComputerScope, limits: AgentLimits | None = None) -> None:
        self.websocket = websocket
        self.computer = computer
        self.computer_id = computer.computer_id
        self.limits = limits or AgentLimits()
        self.closed = False
        # Set when the agent is given up on: no close frame can reach an agent that reads nothing,
        # so the task serving the connection (the one that made it) is cancelled instead, since no
        # disconnect would ever reach its receive loop.
        self.abandoned = False
        self._owner = asyncio.current_task()
        # A list, not a deque: an empty deque takes a block of 64 slots, and an idle agent's
        # queue is empty; the list stays short (`max_queued_messages`).
        self._queue: list[GatewayMessage] = []
        self._writer: asyncio.Task[None] | None = None

    def send(self, message: GatewayMessage) -> bool:
        """Queues `message`; False when the agent is gone or cannot keep up (the caller decides
        whether that matters: a job stays `sent` and is sent again by its resend timer)."""
        if self.closed:
            return False
        if len(self._queue) >= self.limits.max_queued_messages:
            self._give_up(f"more than {self.limits.max_queued_messages} messages waiting")
            return False
        self._queue.append(message)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_queued(), name=f"agent-writer-{self.computer_id}")
        return True

    async def close(self, code: int, reason: str) -> None:
        """Closes now: what is still queued is dropped (the agent reports its state on reconnect)."""
        if self.closed:
            return
        self.closed = True
        self._queue.clear()
        await self._stop_writer()
        try:
            await self.websocket.close(code, fitted_close_reason(reason))
        except _SOCKET_GONE:
            log.debug("socket already gone", extra={"computer_id": self.computer_id})

    async def release(self) -> None:
        """Stops the writer once the agent has gone; nothing more is sent."""
        self.closed = True
        await self._stop_writer()

    async def _stop_writer(self) -> None:
        if self._writer is None:
            return
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer

    def _give_up(self, why: str) -> None:
        if self.abandoned:
            return
        log.warning("agent too slow; dropping its connection", extra={"computer_id": self.computer_id, "why": why})
        self.closed = self.abandoned = True
        self._queue.clear()
        if self._writer is not None:
            self._writer.cancel()
        if self._owner is not None:
            self._owner.cancel()

    async def _write_queued(self) -> None:
        try:
            while self._queue:
                message = self._queue.pop(0)
                try:
                    await asyncio.wait_for(
                        self.websocket.send_json(message.to_wire()), self.limits.send_timeout_seconds
                    )
                except TimeoutError:
                    self._give_up(f"a message not taken within {self.limits.send_timeout_seconds:g}s")
                    return
                except _SOCKET_GONE:
                    self.closed = True
                    return
        finally:
            # The finished task is not held for the connection's life; `send` starts another.
            if self._writer is asyncio.current_task():
                self._writer = None
