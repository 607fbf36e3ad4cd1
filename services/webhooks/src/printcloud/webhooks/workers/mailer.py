"""Sends queued e-mails over SMTP, retrying failures with growing waits."""

from __future__ import annotations

import asyncio
import logging
import smtplib
from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.core.mail import SmtpServer
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence import mail

log = logging.getLogger(__name__)

BATCH = 20
MAX_RETRY_WAIT = timedelta(hours=1)


class Mailer:
    def __init__(self, db: Database, server: SmtpServer, *, poll_interval: float = 1.0) -> None:
        self.db = db
        self.server = server
        self.poll_interval = poll_interval

    async def send_due(self) -> int:
        """One pass; the rows stay locked while they are sent, so replicas never send one twice."""
        async with self.db.transaction() as session:
            now = utcnow()
            due = await mail.claim_due(session, now, BATCH)
            for item in due:
                try:
                    await asyncio.to_thread(self.server.send, item.recipient, item.subject, item.body)
                except (OSError, smtplib.SMTPException) as exc:
                    wait = min(timedelta(seconds=10 * 2**item.attempts), MAX_RETRY_WAIT)
                    log.warning("e-mail not sent; will retry", extra={"mail_id": str(item.id), "error": str(exc)})
                    await mail.mark_failed(session, item, utcnow(), wait)
                else:
                    await mail.mark_sent(session, item.id, utcnow())
        return len(due)

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
