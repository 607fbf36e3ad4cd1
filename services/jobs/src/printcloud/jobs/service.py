"""The jobs use cases: each one a transaction that applies the domain rules to stored jobs.

Every state change locks the job row, writes the job, one state-change row and its outbox rows
in one transaction, so concurrent reports of one job serialize and none is half-recorded.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from printcloud.core import representations
from printcloud.core.db import Database
from printcloud.core.errors import ApiError, not_found
from printcloud.core.ids import parse_uuid, uuid7
from printcloud.core.messages import Message
from printcloud.core.paging import Page, PageRequest
from printcloud.core.timeutil import utcnow
from printcloud.core.topics import AGENT_COMMANDS, DOMAIN_EVENTS
from printcloud.jobs import protos
from printcloud.jobs.domain import states
from printcloud.jobs.domain.options import with_defaults
from printcloud.jobs.domain.states import Actor
from printcloud.jobs.domain.submission import Submission, accept, check_content
from printcloud.jobs.persistence import repository
from printcloud.jobs.persistence.records import JobRecord
from printcloud.jobs.persistence.repository import JobFilters, Scope
from printcloud.jobs.persistence.tables import outbox
from printcloud.v1 import devices_pb2

FILE_RETENTION = timedelta(days=7)
FILE_CHUNK_BYTES = 1024 * 1024
# States in which the job's agent may download the file.
_DOWNLOADABLE_STATES = frozenset({states.SENT, states.RECEIVED, states.PRINTING})


class PrinterDirectory(Protocol):
    async def get_printer(self, scope: Scope, printer_id: uuid.UUID) -> devices_pb2.Printer:
        """The printer in `scope`; raises `404 not_found` when it is not there."""
        ...


def _parse_id(value: str, what: str) -> uuid.UUID:
    """An id from a path or an agent: one that is not a UUID names nothing, so it is not found."""
    parsed = parse_uuid(value)
    if parsed is None:
        raise not_found(what)
    return parsed


def _printer_defaults(printer: devices_pb2.Printer) -> Any:
    try:
        return json.loads(printer.default_options_json or "{}")
    except ValueError:
        return {}


def _now() -> datetime:
    """The current time at the millisecond precision timestamps are published with, so a job's
    `createdAt` sent back as an inclusive `created_to` bound still matches that job."""
    now = utcnow()
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


def _job_event(job: JobRecord) -> Message:
    return Message(
        type=f"printjob.{job.state}",
        organization_id=str(job.organization_id),
        mode=job.mode,
        data=representations.print_job(protos.print_job(job)),
    )


def _agent_command(job: JobRecord, command: str) -> Message:
    return Message(
        type=command,
        organization_id=str(job.organization_id),
        mode=job.mode,
        data={"computerId": str(job.computer_id), "jobId": str(job.id)},
    )


class JobService:
    def __init__(self, db: Database, printers: PrinterDirectory) -> None:
        self.db = db
        self.printers = printers

    async def _record_state(
        self, session: AsyncSession, job: JobRecord, actor: Actor, at: datetime, message: str | None = None
    ) -> None:
        """Records the state `job` is now in: its state-change row and its `printjob.<state>` event."""
        await repository.add_state_change(session, job, message, actor, at)
        await outbox.add(session, DOMAIN_EVENTS, str(job.id), _job_event(job))

    async def _move(
        self, session: AsyncSession, job: JobRecord, state: str, actor: Actor, message: str | None = None
    ) -> None:
        now = _now()
        job.state = state
        stamp = states.timestamp_field(state)
        if stamp is not None:
            setattr(job, stamp, now)
        await self._record_state(session, job, actor, now, message)

    async def create_job(self, scope: Scope, submission: Submission) -> JobRecord:
        accepted = accept(submission)
        printer = await self.printers.get_printer(scope, accepted.printer_id)
        if printer.mode != scope.mode:
            raise ApiError("mode_mismatch", "The printer belongs to the other mode.")
        if not printer.enabled:
            raise ApiError("printer_disabled", "The printer is not live (`enabled` is false).")
        check_content(accepted.content_type, accepted.content)
        # Raw data is sent to the printer as is, so the printer's defaults would never apply either.
        options = accepted.options if accepted.is_raw else with_defaults(accepted.options, _printer_defaults(printer))
        now = _now()
        sha256 = hashlib.sha256(accepted.content).hexdigest()
        async with self.db.transaction() as session:
            file_id = await repository.add_file(session, scope, accepted.content, sha256, now, now + FILE_RETENTION)
            job = JobRecord(
                id=uuid7(),
                organization_id=scope.organization_id,
                mode=scope.mode,
                printer_id=accepted.printer_id,
                computer_id=uuid.UUID(printer.computer_id),
                printer_name=printer.name,
                title=accepted.title,
                content_type=accepted.content_type,
                source=accepted.source,
                qty=accepted.qty,
                options=options,
                expire_after=accepted.expire_after,
                expires_at=now + timedelta(seconds=accepted.expire_after),
                file_id=file_id,
                file_sha256=sha256,
                file_size=len(accepted.content),
                state=states.INITIAL_STATE,
                state_message=None,
                send_count=0,
                created_at=now,
            )
            await repository.add_job(session, job)
            await self._record_state(session, job, Actor.API, now)
            await outbox.add(session, AGENT_COMMANDS, str(job.computer_id), _agent_command(job, "job.deliver"))
        return job

    async def get_job(self, scope: Scope, job_id: str) -> JobRecord:
        async with self.db.read() as session:
            job = await repository.get_job(session, scope, _parse_id(job_id, "print job"))
        if job is None:
            raise not_found("print job")
        return job

    async def list_jobs(self, scope: Scope, filters: JobFilters, page: PageRequest) -> Page[JobRecord]:
        async with self.db.read() as session:
            return await repository.list_jobs(session, scope, filters, page)

    async def list_state_changes(self, scope: Scope, job_id: str) -> Sequence[Row[Any]]:
        async with self.db.read() as session:
            job = await repository.get_job(session, scope, _parse_id(job_id, "print job"))
            if job is None:
                raise not_found("print job")
            return await repository.list_state_changes(session, job.id)

    async def cancel_job(self, scope: Scope, job_id: str) -> JobRecord:
        async with self.db.transaction() as session:
            job = await repository.get_job(session, scope, _parse_id(job_id, "print job"), lock=True)
            if job is None:
                raise not_found("print job")
            if not states.may_transition(job.state, states.CANCELLED, Actor.API):
                raise ApiError(
                    "not_cancellable", f"The job is `{job.state}`; only queued or sent jobs can be cancelled."
                )
            await self._move(session, job, states.CANCELLED, Actor.API)
            await outbox.add(session, AGENT_COMMANDS, str(job.computer_id), _agent_command(job, "job.cancel"))
        return job

    async def _lock_computer_job(self, session: AsyncSession, computer_id: str, job_id: str) -> JobRecord:
        job = await repository.get_computer_job(
            session, _parse_id(computer_id, "computer"), _parse_id(job_id, "print job"), lock=True
        )
        if job is None:
            raise not_found("print job")
        return job

    async def mark_sent(self, computer_id: str, job_id: str) -> JobRecord:
        async with self.db.transaction() as session:
            job = await self._lock_computer_job(session, computer_id, job_id)
            if job.state == states.SENT:
                # A resend: the state is unchanged, so no state-change row and no event.
                job.send_count += 1
            elif states.may_transition(job.state, states.SENT, Actor.SYSTEM):
                job.send_count += 1
                await self._move(session, job, states.SENT, Actor.SYSTEM)
            else:
                raise ApiError("conflict", f"The job is `{job.state}`; only a queued job can be sent.")
        return job

    async def report_state(self, computer_id: str, job_id: str, state: str, message: str | None) -> JobRecord:
        if state not in states.AGENT_REPORTED_STATES:
            raise ApiError(
                "invalid_request", "An agent reports one of " + ", ".join(states.AGENT_REPORTED_STATES) + "."
            )
        async with self.db.transaction() as session:
            job = await self._lock_computer_job(session, computer_id, job_id)
            if job.state == state:
                # Agents resend reports they are unsure were delivered; the first one counted.
                return job
            if not states.may_transition(job.state, state, Actor.AGENT):
                raise ApiError("conflict", f"The job is `{job.state}`; it cannot become `{state}`.")
            if state == states.ERROR:
                job.state_message = message
            await self._move(session, job, state, Actor.AGENT, message)
        return job

    async def get_delivery(self, computer_id: str, job_id: str) -> JobRecord:
        async with self.db.read() as session:
            job = await repository.get_computer_job(
                session, _parse_id(computer_id, "computer"), _parse_id(job_id, "print job")
            )
        if job is None:
            raise not_found("print job")
        return job

    async def read_file(self, computer_id: str, job_id: str) -> AsyncIterator[bytes]:
        """The job's file in chunks, while the job is with its agent."""
        job = await self.get_delivery(computer_id, job_id)
        if job.state not in _DOWNLOADABLE_STATES or job.file_id is None:
            raise not_found("print job file")
        for offset in range(0, job.file_size, FILE_CHUNK_BYTES):
            # A short session per chunk: a slow reader must not hold a pooled connection.
            async with self.db.read() as session:
                chunk = await repository.read_file_chunk(session, job.file_id, offset, FILE_CHUNK_BYTES)
            if chunk is None:
                raise not_found("print job file")
            yield chunk

    async def list_pending(self, computer_id: str) -> Sequence[JobRecord]:
        parsed = parse_uuid(computer_id)
        if parsed is None:
            raise ApiError("invalid_request", "`computer_id` must be a UUID.")
        async with self.db.read() as session:
            return await repository.list_pending_jobs(session, parsed)
