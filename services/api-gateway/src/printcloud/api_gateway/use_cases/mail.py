"""E-mail the gateway sends (sign-in codes, invitations): after the transaction that decided it,
in a task of its own, so that neither the answer's timing nor an SMTP failure depends on it."""

from __future__ import annotations

import asyncio
import logging
import smtplib
from dataclasses import dataclass, field

from printcloud.core.mail import SmtpServer

log = logging.getLogger(__name__)


@dataclass
class Mailer:
    smtp: SmtpServer
    _sending: set[asyncio.Task[None]] = field(default_factory=set)

    def send_later(self, what: str, recipient: str, subject: str, body: str) -> None:
        """`what` names the e-mail in logs ("sign-in code"); the body never reaches a log."""
        task = asyncio.create_task(self._send(what, recipient, subject, body))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _send(self, what: str, recipient: str, subject: str, body: str) -> None:
        if not self.smtp.configured:
            log.warning(f"{what} not sent: PRINTCLOUD_SMTP_HOST is not set")
            return
        try:
            await asyncio.to_thread(self.smtp.send, recipient, subject, body)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning(f"{what} not sent", extra={"error": type(exc).__name__})
