"""Sends queued e-mails over SMTP, retrying failures with growing waits."""

from __future__ import annotations

import asyncio
import logging
import smtplib

from printcloud.core.db.database import Database
from printcloud.core.mail import SmtpServer
from printcloud.webhooks.persistence.mail import Mail
from printcloud.webhooks.use_cases import owner_mail

log = logging.getLogger(__name__)


class Mailer:
    def __init__(self, db: Database, server: SmtpServer, *, poll_interval: float = 1.0) -> None:
        self.db = db
        self.server = server
        self.poll_interval = poll_interval

    async def send_due(self) -> int:
        """One pass; how many e-mails were due."""
        return await owner_mail.send_due(self.db, self._send)

    async def _send(self, item: Mail) -> str | None:
        try:
            await asyncio.to_thread(self.server.send, item.recipient, item.subject, item.body)
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("e-mail not sent; will retry", extra={"mail_id": str(item.id), "error": str(exc)})
            return str(exc)
        return None

    async def run(self) -> None:
        while True:
            try:
                sent = await self.send_due()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("mailer pass failed; will retry", exc_info=True)
                sent = 0
            if not sent:
                await asyncio.sleep(self.poll_interval)
