"""The invariants the suite checks after each fault, as figures, read from the server's database
(jobs, state changes, outboxes), the services' metrics, the print ledger of the virtual printers,
the event feed as a client followed it and the webhook deliveries received.

`measure` is cheap, so waiting for "everything back" is measuring again until nothing is pending
(or a deadline passes): the figures that must reach zero are the conditions waited for.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import asyncpg
import httpx

from printcloud.agent.backends.print_ledger import printed_jobs
from printcloud.core.db import asyncpg_dsn
from tests.e2e.jobs_api import TERMINAL
from tests.faults.harness import FaultStack
from tests.faults.load import CreateOutcome, job_title
from tests.faults.observers import FeedFollower, WebhookSink

OUTBOX_SCHEMAS = ("gateway", "jobs", "devices")
LAG_SAMPLE = re.compile(r"^printcloud_kafka_consumer_lag_messages\{([^}]*)\} (\S+)$", re.MULTILINE)


@dataclass
class Figures:
    fault: str
    keys: int = 0
    answered_201: int = 0
    gave_up: int = 0
    rejected: int = 0
    client_errors: dict[str, int] = field(default_factory=dict)
    jobs_on_server: int = 0
    lost: int = 0  # keys answered 201 whose job is not on the server
    duplicated: int = 0  # jobs beyond the first for one idempotency key
    states: dict[str, int] = field(default_factory=dict)
    not_terminal: int = 0
    printed_twice: int = 0
    done_not_printed: int = 0
    state_changes: int = 0
    feed_missing: int = 0
    feed_skipped_by_follower: int = 0  # recorded in the feed, but behind a follower's cursor
    feed_duplicated: int = 0
    feed_out_of_order: int = 0
    webhook_events: int = 0
    webhook_missing: int = 0
    webhook_bad_signatures: int = 0
    webhook_redelivered: int = 0
    outbox_backlog: int = 0
    consumer_lag: int | None = None  # None: a service's metrics did not answer
    lagging: dict[str, int] = field(default_factory=dict)  # where the lag is: service and labels
    service_back_seconds: float | None = None
    first_done_after_fault_seconds: float | None = None
    settled_seconds: float | None = None

    @property
    def pending(self) -> bool:
        """Still moving: what waiting can bring to zero."""
        return bool(
            self.not_terminal or self.outbox_backlog or self.consumer_lag != 0
            or self.feed_missing or self.webhook_missing
        )  # fmt: skip

    def failures(self) -> dict[str, Any]:
        """Every invariant that does not hold, with its figure."""
        must_be_zero = (
            "lost", "duplicated", "not_terminal", "printed_twice", "done_not_printed", "feed_missing",
            "feed_duplicated", "feed_out_of_order", "webhook_missing", "webhook_bad_signatures", "outbox_backlog",
            "gave_up",
        )  # fmt: skip
        failed = {name: getattr(self, name) for name in must_be_zero if getattr(self, name)}
        if self.consumer_lag != 0:
            failed["consumer_lag"] = self.consumer_lag
            if self.lagging:
                failed["lagging"] = self.lagging
        return failed

    def table(self) -> str:
        return "\n".join(f"  {name:<34} {value}" for name, value in asdict(self).items())


async def _fetch(database_url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(asyncpg_dsn(database_url), timeout=5)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


def fetch(faults: FaultStack, sql: str, *args: Any) -> list[asyncpg.Record]:
    return asyncio.run(_fetch(faults.stack.database_url, sql, *args))


def consumer_lag(faults: FaultStack) -> dict[str, int] | None:
    """Every running consumer's lag that is not zero, as the services report it on /metrics, by
    service and labels (group, topic, partition)."""
    lagging = {}
    for name in faults.stack.services:
        try:
            text = httpx.get(f"{faults.stack.ops_url(name)}/metrics", timeout=2).text
        except httpx.HTTPError:
            return None
        for labels, value in LAG_SAMPLE.findall(text):
            if lag := int(float(value)):
                lagging[f"{name} {labels}"] = lag
    return lagging


def outbox_backlog(faults: FaultStack) -> int:
    return sum(
        fetch(faults, f"SELECT count(*) FROM {schema}.outbox WHERE sent_at IS NULL")[0][0] for schema in OUTBOX_SCHEMAS
    )


@dataclass
class Round:
    fault: str
    label: str
    started_at: float
    injected_at: float = 0.0
    healed_at: float = 0.0
    service_back_seconds: float | None = None
    outcomes: list[CreateOutcome] = field(default_factory=list)


def measure(faults: FaultStack, feed: FeedFollower, hooks: WebhookSink, rnd: Round) -> Figures:
    f = Figures(rnd.fault, service_back_seconds=rnd.service_back_seconds)
    outcomes = rnd.outcomes
    f.keys = len(outcomes)
    f.answered_201 = sum(1 for o in outcomes if o.job_id)
    f.gave_up = sum(1 for o in outcomes if not o.job_id and not o.rejected)
    f.rejected = sum(1 for o in outcomes if o.rejected)
    errors: Counter[str] = Counter()
    for o in outcomes:
        errors.update(o.failures)
    f.client_errors = dict(errors)

    rows = fetch(
        faults,
        "SELECT id::text, title, state, extract(epoch FROM created_at) AS created, "
        "extract(epoch FROM finished_at) AS finished FROM jobs.print_jobs WHERE title LIKE $1",
        job_title(rnd.label) + "-%",
    )
    jobs = {row["id"]: row for row in rows}
    by_title = Counter(row["title"] for row in rows)
    f.jobs_on_server = len(rows)
    f.duplicated = sum(count - 1 for count in by_title.values() if count > 1)
    f.lost = sum(
        1 for o in outcomes if o.job_id and (o.job_id not in jobs or jobs[o.job_id]["title"] != job_title(o.key))
    )
    f.states = dict(Counter(row["state"] for row in rows))
    f.not_terminal = sum(1 for row in rows if row["state"] not in TERMINAL)
    done_after_fault = [row["finished"] for row in rows
                        if row["state"] == "done" and float(row["created"]) >= rnd.injected_at]  # fmt: skip
    if done_after_fault and rnd.injected_at:
        f.first_done_after_fault_seconds = round(float(min(done_after_fault)) - rnd.injected_at, 1)

    prints = Counter(printed_jobs(faults.print_ledger))
    f.printed_twice = sum(1 for job_id in jobs if prints[job_id] > 1)
    f.done_not_printed = sum(1 for job_id, row in jobs.items() if row["state"] == "done" and prints[job_id] == 0)

    _feed_figures(f, faults, feed, list(jobs))
    _webhook_figures(f, feed, hooks, rnd.started_at)
    f.outbox_backlog = outbox_backlog(faults)
    lagging = consumer_lag(faults)
    if lagging is not None:
        f.consumer_lag, f.lagging = sum(lagging.values()), lagging
    return f


def _feed_figures(f: Figures, faults: FaultStack, feed: FeedFollower, job_ids: list[str]) -> None:
    expected: dict[str, list[str]] = defaultdict(list)
    for row in fetch(faults, "SELECT job_id::text, state FROM jobs.job_state_changes WHERE job_id::text = ANY($1) "
                             "ORDER BY created_at, id", job_ids):  # fmt: skip
        expected[row["job_id"]].append(row["state"])
    recorded = {row["subject"]: row["n"] for row in fetch(
        faults, "SELECT data->>'id' AS subject, count(*) AS n FROM webhooks.events "
                "WHERE type LIKE 'printjob.%' AND data->>'id' = ANY($1) GROUP BY 1", job_ids)}  # fmt: skip
    seen: dict[str, list[str]] = defaultdict(list)
    wanted = set(job_ids)
    for events in feed.snapshot().values():
        for event in events:
            if event.subject in wanted and event.type.startswith("printjob."):
                seen[event.subject].append(event.type.removeprefix("printjob."))
    f.state_changes = sum(len(states) for states in expected.values())
    for job_id in job_ids:
        want, got = expected.get(job_id, []), seen.get(job_id, [])
        missing = Counter(want) - Counter(got)
        f.feed_missing += sum(missing.values())
        f.feed_duplicated += sum((Counter(got) - Counter(want)).values())
        f.feed_skipped_by_follower += max(0, min(recorded.get(job_id, 0) - len(got), sum(missing.values())))
        if not missing and Counter(got) == Counter(want) and got != want:
            f.feed_out_of_order += 1


def _webhook_figures(f: Figures, feed: FeedFollower, hooks: WebhookSink, since: float) -> None:
    """Every event the feed showed since the round began, and that happened once its tenant's
    endpoint existed, reached that endpoint, signed."""
    delivered = hooks.by_event()
    events = [
        event
        for org, events in feed.snapshot().items()
        for event in events
        if event.seen_at >= since and event.happened_at >= hooks.subscribed_at.get(org, float("inf"))
    ]
    f.webhook_events = len(events)
    for event in events:
        deliveries = delivered.get(event.id, [])
        if not any(d.valid_signature for d in deliveries):
            f.webhook_missing += 1
        f.webhook_redelivered += max(0, len(deliveries) - 1)
        # This round's own: a bad one of an earlier round is that round's failure, not every later one's.
        f.webhook_bad_signatures += sum(1 for d in deliveries if not d.valid_signature)


def settle(faults: FaultStack, feed: FeedFollower, hooks: WebhookSink, rnd: Round, deadline_s: float) -> Figures:
    """Measures until nothing is pending any more or `deadline_s` passed; the last figures."""
    deadline = time.monotonic() + deadline_s
    while True:
        figures = measure(faults, feed, hooks, rnd)
        if not figures.pending or time.monotonic() > deadline:
            if not figures.pending:
                figures.settled_seconds = round(time.time() - rnd.healed_at, 1)
            return figures
        time.sleep(2.0)
