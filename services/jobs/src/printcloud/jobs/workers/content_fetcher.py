"""Fetches URL content right after a job is created, through the guarded egress client.

Pending fetches live in `jobs.pending_fetches`, so a restarted process (or another replica)
picks up what was left: a fetcher claims a row for longer than a fetch can take, and a row of a
fetcher that died becomes claimable again when its claim runs out.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import timedelta

from printcloud.contracts.job_upload import MAX_DOCUMENT_BYTES
from printcloud.core.db.database import AnyRow
from printcloud.core.http.egress import EgressFailed, EgressGuard, EgressRefused
from printcloud.core.periodic import woken_or_after
from printcloud.jobs.use_cases.print_jobs import JobService

log = logging.getLogger(__name__)

FETCH_TIMEOUT_SECONDS = 30.0


class ContentFetcher:
    def __init__(
        self,
        jobs: JobService,
        egress: EgressGuard,
        *,
        concurrency: int = 4,
        poll_seconds: float = 1.0,
        timeout_seconds: float = FETCH_TIMEOUT_SECONDS,
    ) -> None:
        self.jobs = jobs
        self.egress = egress
        self.concurrency = concurrency
        self.poll_seconds = poll_seconds
        self.timeout_seconds = timeout_seconds
        self._wakeup = asyncio.Event()

    def wake(self) -> None:
        self._wakeup.set()

    async def run(self) -> None:
        """Claims pending fetches while fewer than `concurrency` are under way, each fetched in a
        task of its own. One loop claims for all of them: an idle process asks once a poll, not
        once a poll for each fetch it could run."""
        free = asyncio.Semaphore(self.concurrency)
        async with asyncio.TaskGroup() as fetches:
            while True:
                await free.acquire()
                # Cleared before claiming: a wake-up arriving after this is either seen by the claim
                # or leaves the event set for the wait below.
                self._wakeup.clear()
                try:
                    claimed = await self._claim()
                except Exception:
                    log.exception("content fetch round failed")
                    claimed = None
                if claimed is not None:
                    fetches.create_task(self._fetch_then_free(claimed, free))
                    continue
                free.release()
                await woken_or_after(self._wakeup, self.poll_seconds)

    async def _fetch_then_free(self, claimed: AnyRow, free: asyncio.Semaphore) -> None:
        try:
            await self._fetch(claimed)
        except Exception:
            # The row's claim runs out and another round takes it again.
            log.exception("content fetch round failed")
        finally:
            free.release()

    async def _claim(self) -> AnyRow | None:
        # Held twice as long as a fetch may take, so only a dead fetcher's rows are taken over.
        return await self.jobs.claim_pending_fetch(timedelta(seconds=2 * self.timeout_seconds))

    async def _fetch(self, pending: AnyRow) -> None:
        job_id: uuid.UUID = pending.job_id
        auth = (pending.auth_user, pending.auth_pass) if pending.auth_user is not None else None
        try:
            response = await self.egress.request(
                "GET", pending.url, auth=auth, timeout=self.timeout_seconds, max_body_bytes=MAX_DOCUMENT_BYTES
            )
        except EgressRefused as refused:
            await self.jobs.fail_fetch(job_id, f"The content URL was refused: {refused.reason}")
            return
        except EgressFailed as failed:
            await self.jobs.fail_fetch(job_id, f"The content URL could not be fetched: {failed.reason}")
            return
        # Only the job id is logged: the URL may carry tokens and the row carries credentials.
        log.info("content fetched", extra={"job_id": str(job_id), "status": response.status})
        if 300 <= response.status < 400:
            await self.jobs.fail_fetch(
                job_id, f"The content URL answered HTTP {response.status}; redirects are not followed."
            )
        elif response.status != 200:
            await self.jobs.fail_fetch(job_id, f"The content URL answered HTTP {response.status}.")
        elif not response.body:
            await self.jobs.fail_fetch(job_id, "The content URL answered with an empty file.")
        else:
            await self.jobs.store_fetched_file(job_id, response.body)
