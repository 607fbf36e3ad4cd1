"""Sends due deliveries with bounded concurrency overall and per endpoint, and records each attempt.

The database is the schedule: a claimed delivery carries a lease, and every attempt's result is
written before the delivery's next attempt is considered, so a crash loses nothing and a restart
resumes the schedule (what was in flight is sent again once its lease runs out: at least once).
The concurrency limits count sends: a send's slot frees when its exchange ends, while its attempt
is still being recorded together with others (`attempt_recorder`).

The worker claims when there is something to claim: new deliveries and finished sends wake it, and
so does each retry it scheduled itself, at the time it falls due. The poll is only a safety net, for
work no wake-up announces (a lease run out, a retry scheduled by a replica that has stopped): an
idle worker asks the database once a poll, not several times a second.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import uuid
from collections import Counter as Tally
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from prometheus_client import Counter, Histogram

from printcloud.core.db.database import Database
from printcloud.core.periodic import woken_or_after
from printcloud.core.timeutil import utcnow
from printcloud.webhooks.domain.attempts import after_attempt
from printcloud.webhooks.persistence.deliveries import Attempt, Claim
from printcloud.webhooks.use_cases.sending import claim_due
from printcloud.webhooks.workers.attempt_recorder import AttemptRecorder
from printcloud.webhooks.workers.sender import Sender

log = logging.getLogger(__name__)

RETRY_WAKE_MARGIN_SECONDS = 0.01
# Due times kept at most: past them (a great many receivers failing at once) a retry is claimed
# by the poll instead, at most a poll late, and the worker's memory stays bounded.
MOST_RETRY_WAKE_UPS = 10_000

ATTEMPTS = Counter("printcloud_webhook_attempts_total", "Webhook delivery attempts", ["outcome"])
ATTEMPT_SECONDS = Histogram("printcloud_webhook_attempt_duration_seconds", "Duration of one webhook attempt")
# From the event recorded for the endpoint to the attempt it accepted, retries included.
DELIVERY_LATENCY = Histogram(
    "printcloud_webhook_delivery_latency_seconds",
    "Time from an event to its successful delivery",
    buckets=(0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600, 72 * 3600),
)


@dataclass(frozen=True)
class WorkerLimits:
    max_concurrent: int
    per_endpoint: int
    failing_concurrent: int
    lease: timedelta
    poll_interval: float
    retry_scale: float
    auto_disable_after: timedelta


class DeliveryWorker:
    def __init__(
        self, db: Database, sender: Sender, limits: WorkerLimits, *, on_mail_queued: Callable[[], None] = lambda: None
    ) -> None:
        self.db = db
        self.sender = sender
        self.limits = limits
        self._in_flight: Tally[uuid.UUID] = Tally()
        self._failing_in_flight = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        # The loop times at which retries this worker scheduled fall due, earliest first.
        self._retries_due: list[float] = []
        self._recorder = AttemptRecorder(
            db, auto_disable_after=limits.auto_disable_after, on_mail_queued=on_mail_queued
        )

    def wake(self) -> None:
        """Called when new deliveries are committed, so they go out without waiting for a poll."""
        self._wake.set()

    async def run(self) -> None:
        try:
            while True:
                self._wake.clear()
                self._drop_retries_due()
                sending = sum(self._in_flight.values())
                # Sends whose attempt still waits to be recorded count too, once there are as many as
                # sends allowed: a slow database must slow the sending, not pile results up in memory.
                recording = len(self._tasks) - sending
                free = self.limits.max_concurrent - sending - max(recording - self.limits.max_concurrent, 0)
                claimed = await self._claim(free) if free > 0 else []
                for claim in claimed:
                    self._start(claim)
                if len(claimed) == free:
                    # Every slot taken: wait for one to free up (a finishing send wakes us).
                    await self._wake.wait()
                else:
                    # Everything claimable was claimed: claiming again before a send finishes, new
                    # deliveries arrive or a retry falls due (each wakes us) finds nothing.
                    await woken_or_after(self._wake, self._until_next_claim())
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._recorder.close()

    def _drop_retries_due(self) -> None:
        """Forgets the retries due by now: the claim about to be made takes them."""
        now = asyncio.get_running_loop().time()
        while self._retries_due and self._retries_due[0] <= now:
            heapq.heappop(self._retries_due)

    def _until_next_claim(self) -> float:
        """Seconds until the next retry this worker scheduled falls due, at most a poll."""
        if not self._retries_due:
            return self.limits.poll_interval
        now = asyncio.get_running_loop().time()
        return max(0.0, min(self.limits.poll_interval, self._retries_due[0] - now))

    def _retry_scheduled(self, next_attempt_at: datetime) -> None:
        # The claim compares the retry's time with the wall clock (`utcnow`); the loop's timers
        # keep another clock, and may fire a millisecond early. The margin keeps the wake-up
        # after the retry's time; were it early all the same, the poll after it would claim it.
        if len(self._retries_due) >= MOST_RETRY_WAKE_UPS:
            return
        delay = (next_attempt_at - utcnow()).total_seconds() + RETRY_WAKE_MARGIN_SECONDS
        heapq.heappush(self._retries_due, asyncio.get_running_loop().time() + max(delay, 0.0))
        # The worker may be waiting with a longer timeout: it recomputes it.
        self._wake.set()

    async def _claim(self, limit: int) -> list[Claim]:
        try:
            return await claim_due(
                self.db,
                limit=limit,
                per_endpoint=self.limits.per_endpoint,
                in_flight={k: v for k, v in self._in_flight.items() if v},
                failing_limit=max(self.limits.failing_concurrent - self._failing_in_flight, 0),
                lease=self.limits.lease,
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("claiming deliveries failed; will retry", exc_info=True)
            await asyncio.sleep(self.limits.poll_interval)
            return []

    def _start(self, claim: Claim) -> None:
        self._in_flight[claim.endpoint_id] += 1
        self._failing_in_flight += claim.failing
        task = asyncio.create_task(self._deliver(claim))
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._wake.set()

    def _sent(self, claim: Claim) -> None:
        """The receiver's slot is free once its exchange ends. The delivery stays leased until its
        attempt is recorded, so no claim takes it again meanwhile: its next attempt is still
        considered only once this one is written."""
        self._in_flight[claim.endpoint_id] -= 1
        self._failing_in_flight -= claim.failing
        if not self._in_flight[claim.endpoint_id]:
            del self._in_flight[claim.endpoint_id]
        self._wake.set()

    async def _deliver(self, claim: Claim) -> None:
        sent_at = utcnow()
        try:
            with ATTEMPT_SECONDS.time():
                outcome = await self.sender.attempt(claim)
        finally:
            self._sent(claim)
        ATTEMPTS.labels("succeeded" if outcome.succeeded else "failed").inc()
        now = utcnow()
        if outcome.succeeded and claim.created_at is not None:
            DELIVERY_LATENCY.observe(max((now - claim.created_at).total_seconds(), 0.0))
        state = after_attempt(claim.attempt + 1, outcome, now, retry_scale=self.limits.retry_scale)
        try:
            await self._recorder.record(Attempt(claim, outcome, state, sent_at=sent_at, ended_at=now))
            if state.next_attempt_at is not None:
                self._retry_scheduled(state.next_attempt_at)
        except asyncio.CancelledError:
            raise
        except Exception:
            # The lease runs out and the attempt is made again: at least once, never lost.
            log.warning("recording a delivery attempt failed", exc_info=True, extra={"delivery_id": str(claim.id)})
