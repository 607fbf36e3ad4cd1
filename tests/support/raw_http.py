"""Speaking to a public port over a raw socket, the way a hostile client would: what it sends is
written as given, and the answer is read until the server closes the connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from typing import Any

# Past this, a server that has neither answered nor closed never will: a test fails rather than hangs.
ANSWER_TIMEOUT_SECONDS = 20.0

# The opening handshake's fields (RFC 6455, section 4.1) but for the request line, and the blank line.
WEBSOCKET_HANDSHAKE = (
    b"Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
)


async def exchange(port: int, *parts: bytes, pause: float = 0.0) -> tuple[bytes, float]:
    """Sends `parts` to 127.0.0.1:`port`, waiting `pause` for an answer after each (and sending no
    more once one comes), then reads until the server closes; returns the answer and how long after
    the last part sent the server closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    answer = b""
    loop = asyncio.get_running_loop()
    sent = loop.time()
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
            sent = loop.time()
            if pause:
                with contextlib.suppress(TimeoutError):
                    answer = await asyncio.wait_for(reader.read(65536), pause)
                if answer:
                    break
        answer += await asyncio.wait_for(reader.read(), ANSWER_TIMEOUT_SECONDS)
        return answer, loop.time() - sent
    finally:
        writer.close()


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def error(self) -> dict[str, Any]:
        """The envelope's `error`, once it is checked to be the envelope with the answer's request id."""
        assert self.headers["content-type"] == "application/json", self.headers
        envelope = json.loads(self.body)
        assert set(envelope) == {"error"}, envelope
        error: dict[str, Any] = envelope["error"]
        assert error["request_id"] == self.headers["x-request-id"]
        return error


def parse_answer(answer: bytes) -> Answer:
    """One HTTP/1.1 answer with a whole body (the server closed after it); header names lower-cased."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines)}
    return Answer(int(status_line.split()[1]), headers, body)
