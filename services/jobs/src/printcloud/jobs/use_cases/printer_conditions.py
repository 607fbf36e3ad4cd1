"""Keeping the read model of printer conditions, and the notes it gives the jobs a read shows.

Jobs learns of printers from devices' `printer.*` events (consumer group `jobs`) rather than by
asking devices on every read: a poll's events cost one transaction, and a read of a job in
progress one more row by key.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core.db.database import Database
from printcloud.core.db.paging import Page
from printcloud.core.scope import Scope
from printcloud.jobs.domain.job import Job, ShownJob
from printcloud.jobs.domain.printer_conditions import (
    PrinterConditionChange,
    latest_per_printer,
    printers_to_ask,
    waiting_note,
)
from printcloud.jobs.domain.states import is_terminal
from printcloud.jobs.persistence import printer_conditions, printer_facts
from printcloud.jobs.persistence.tables import processed_messages

CONSUMER_GROUP = "jobs"


async def record_printer_changes(
    db: Database, changes: Sequence[PrinterConditionChange], settings_changed: Collection[Scope] = ()
) -> int:
    """Takes a poll's printer changes in one transaction, and forgets the printers kept for creates
    in the scopes where a printer's settings changed; returns how many changes were new (a
    redelivered event is recognised by its id and changes nothing)."""
    async with db.transaction() as session:
        fresh = await processed_messages.mark_all(session, CONSUMER_GROUP, [c.message_id for c in changes])
        await printer_conditions.record(session, latest_per_printer(c for c in changes if c.message_id in fresh))
        if settings_changed:
            await printer_facts.forget(session, settings_changed)
    return len(fresh)


async def shown_job(db: Database, scope: Scope, job: Job) -> ShownJob:
    """The job with its note; a finished job costs no read."""
    if is_terminal(job.state):
        return ShownJob(job)
    condition = await printer_conditions.read_one(db, scope, job.printer_id)
    return ShownJob(job, waiting_note(job.state, condition))


async def shown_page(session: AsyncSession, scope: Scope, page: Page[Job]) -> Page[ShownJob]:
    """A page of jobs with their notes, from one read of the conditions of their printers."""
    asked = printers_to_ask([(job.state, job.printer_id) for job in page.items])
    conditions = await printer_conditions.read_many(session, scope, asked)
    items = [ShownJob(job, waiting_note(job.state, conditions.get(job.printer_id))) for job in page.items]
    return Page(items, page.has_more, page.next_cursor)
