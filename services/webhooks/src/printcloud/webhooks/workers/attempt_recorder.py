"""Records finished attempts, together when they finish close together: one transaction for all
the attempts that ended while the previous one was being written."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import timedelta

from printcloud.core.db.database import Database
from printcloud.webhooks.persistence.deliveries import Attempt
from printcloud.webhooks.use_cases.sending import record_attempts
from printcloud.webhooks.workers.group_write import GroupWrite

log = logging.getLogger(__name__)

# A few hundred rows keep one transaction's statements small and its locks short.
MAX_ATTEMPTS_A_TRANSACTION = 256


class AttemptRecorder:
    def __init__(
        self, db: Database, *, auto_disable_after: timedelta, on_mail_queued: Callable[[], None] = lambda: None
    ) -> None:
        self.db = db
        self.auto_disable_after = auto_disable_after
        self.on_mail_queued = on_mail_queued
        self._writes = GroupWrite(self._write, max_items=MAX_ATTEMPTS_A_TRANSACTION)

    async def record(self, attempt: Attempt) -> None:
        """Returns once the attempt is stored; raises if it could not be."""
        await self._writes.submit(attempt)

    async def close(self) -> None:
        await self._writes.close()

    async def _write(self, attempts: Sequence[Attempt]) -> None:
        disabled = await record_attempts(self.db, attempts, auto_disable_after=self.auto_disable_after)
        for endpoint in disabled:
            log.warning("webhook endpoint disabled automatically", extra={"endpoint_id": str(endpoint.id)})
        if disabled:
            self.on_mail_queued()
