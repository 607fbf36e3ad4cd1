"""Sends queued e-mails over SMTP, retrying failures with growing waits.

It looks at the queue when told an e-mail was queued in this process, when a retry falls due, and
otherwise once a poll, for e-mails queued by another replica: an idle mailer costs nothing between.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib

from printcloud.core.db.database import Database
from printcloud.core.mail import SmtpServer
from printcloud.core.periodic import woken_or_after
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.persistence.mail import Mail
from printcloud.webhooks.use_cases import owner_mail

log = logging.getLogger(__name__)

POLL_SECONDS = 30.0
# After a pass that failed (the database unreachable, say), and at least between two passes that
# sent nothing: an e-mail due but held by another replica while it sends is looked at again a
# second later, not at once and again and again.
SHORTEST_WAIT_SECONDS = 1.0


class Mailer:
    def __init__(self, db: Database, server: SmtpServer, *, poll_interval: float = POLL_SECONDS) -> None:
        self.db = db
        self.server = server
        self.poll_interval = poll_interval
        self._wake = asyncio.Event()

    def wake(self) -> None:
        """Called when e-mails are queued in this process, so they go out without waiting for a poll."""
        self._wake.set()

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

    async def _until_next_pass(self) -> float:
        next_due = await owner_mail.next_due(self.db)
        if next_due is None:
            return self.poll_interval
        return min(self.poll_interval, max(SHORTEST_WAIT_SECONDS, (next_due - utcnow()).total_seconds()))

    async def run(self) -> None:
        while True:
            self._wake.clear()
            try:
                sent = await self.send_due()
                wait = 0.0 if sent else await self._until_next_pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("mailer pass failed; will retry", exc_info=True)
                wait = SHORTEST_WAIT_SECONDS
            await woken_or_after(self._wake, wait)
