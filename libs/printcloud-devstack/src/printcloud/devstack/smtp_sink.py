"""A local SMTP server that keeps what it receives, so a developer can read the e-mails sent.

`make dev` writes each message to `.dev/mail.log` and prints a line naming its recipient and
subject; tests read `messages`.
"""

from __future__ import annotations

import threading
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # aiosmtpd calls hooks by this name
        self.sink.keep(envelope.rcpt_tos, envelope.content)
        return "250 Message accepted"


class SmtpSink:
    def __init__(self, port: int, mailbox: Path | None = None, host: str = "127.0.0.1") -> None:
        self.host = host
        self.port = port
        self.mailbox = mailbox
        self.messages: list[Message] = []
        self._lock = threading.Lock()
        self._controller = Controller(_Handler(self), hostname=host, port=port)

    def start(self) -> None:
        self._controller.start()

    def stop(self) -> None:
        self._controller.stop()

    def keep(self, recipients: list[str], content: bytes) -> None:
        message = message_from_bytes(content)
        with self._lock:
            self.messages.append(message)
            if self.mailbox is not None:
                with self.mailbox.open("ab") as mailbox:
                    mailbox.write(f"To: {', '.join(recipients)}\n".encode() + content + b"\n\n")

    def received(self) -> list[Message]:
        with self._lock:
            return list(self.messages)
