"""An e-mail the SMTP server did not take stays queued and is tried again only after its wait,
which doubles with each failure up to a cap; a running mailer sends what it is told was queued,
and what falls due, without waiting for its poll. On the real database, with nothing listening on
the SMTP port or with a real SMTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

from sqlalchemy import select

from printcloud.core.db.database import Database
from printcloud.core.ids import uuid7
from printcloud.core.mail import SmtpServer
from printcloud.core.timeutil import utcnow
from printcloud.devstack.ports import free_port
from printcloud.devstack.smtp_sink import SmtpSink
from printcloud.webhooks.persistence import mail
from printcloud.webhooks.persistence.tables import outgoing_mail
from printcloud.webhooks.use_cases.owner_mail import MAX_RETRY_WAIT, retry_wait
from printcloud.webhooks.workers.mailer import Mailer
from services.webhooks.tests.test_delivery_worker import wait_for


def _smtp(port: int) -> SmtpServer:
    return SmtpServer("127.0.0.1", port, "", "", False, "PrintCloud <no-reply@test>")


# Longer than any test here: a mailer that waited for its poll would fail them.
NEVER_POLLS = 600.0


async def _queue_one(db: Database, due: datetime | None = None) -> tuple[uuid.UUID, str]:
    """The id of the e-mail queued to a new organization's one owner (due now, or at `due`), and
    the owner's address."""
    organization_id = uuid7()
    recipient = f"owner-{organization_id}@example.test"
    async with db.transaction() as session:
        await mail.replace_owners(session, organization_id, [recipient])
        await mail.queue_to_owners(session, organization_id, "subject", "body", due or utcnow())
        found = await session.execute(select(outgoing_mail.c.id).where(outgoing_mail.c.recipient == recipient))
        mail_id: uuid.UUID = found.scalar_one()
    return mail_id, recipient


async def test_a_refused_e_mail_waits_before_it_is_tried_again(db: Database) -> None:
    mail_id, recipient = await _queue_one(db)
    tried_at = utcnow()
    await Mailer(db, _smtp(free_port())).send_due()

    async with db.read() as session:
        row = (await session.execute(select(outgoing_mail).where(outgoing_mail.c.id == mail_id))).one()
    assert row.sent_at is None
    assert row.attempts == 1
    assert tried_at + retry_wait(0) <= row.next_attempt_at <= utcnow() + retry_wait(0)

    sink = SmtpSink(free_port())
    sink.start()
    try:
        await Mailer(db, _smtp(sink.port)).send_due()
        assert all(m["To"] != recipient for m in sink.received()), "not due again before its wait"
    finally:
        sink.stop()


def test_the_wait_doubles_with_each_failure_up_to_an_hour() -> None:
    assert [retry_wait(attempts) for attempts in range(4)] == [timedelta(seconds=s) for s in (10, 20, 40, 80)]
    assert retry_wait(30) == MAX_RETRY_WAIT == timedelta(hours=1)


@contextlib.asynccontextmanager
async def _running_mailer(db: Database) -> AsyncIterator[tuple[Mailer, SmtpSink]]:
    sink = SmtpSink(free_port())
    sink.start()
    mailer = Mailer(db, _smtp(sink.port), poll_interval=NEVER_POLLS)
    task = asyncio.create_task(mailer.run())
    try:
        yield mailer, sink
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        sink.stop()


async def _arrival(sink: SmtpSink, recipient: str) -> float:
    """When the e-mail to `recipient` was first seen in the sink (wall clock)."""
    await wait_for(lambda: any(m["To"] == recipient for m in sink.received()), what=f"an e-mail to {recipient}")
    return time.time()


async def test_a_running_mailer_sends_at_once_what_it_is_told_was_queued(db: Database) -> None:
    async with _running_mailer(db) as (mailer, sink):
        _, recipient = await _queue_one(db)
        mailer.wake()
        await _arrival(sink, recipient)


async def test_a_running_mailer_sends_an_e_mail_when_it_falls_due_not_at_its_poll(db: Database) -> None:
    async with _running_mailer(db) as (mailer, sink):
        due = utcnow() + timedelta(seconds=1.5)
        _, recipient = await _queue_one(db, due)
        mailer.wake()  # it finds nothing due yet, and learns when something will be
        arrived = await _arrival(sink, recipient)
    assert arrived >= due.timestamp()
