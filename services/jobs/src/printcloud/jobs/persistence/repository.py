"""Every query of the jobs schema. Tenant queries take a `Scope` and filter on both of its parts,
so a job of another organization or mode is simply not found.

Changes take the caller's transaction, so that one state change (job row, state-change row,
outbox rows) commits or fails as a whole; a job's creation is one statement, which is a transaction
by itself when nothing else goes with it. A job's creation and its changes are compiled
statements in a driver transaction (`core.db.driver_transaction`): the hottest path of the
service, written once with the tables here and sent without SQLAlchemy's per-call work. Reads of
lists and the housekeeping's changes take a session.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import asyncpg
from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Delete,
    Insert,
    Row,
    Update,
    and_,
    bindparam,
    delete,
    exists,
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import UUID, insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Bundle
from sqlalchemy.sql.dml import ReturningInsert

from printcloud.contracts.enums import Mode
from printcloud.core.db import value_lists
from printcloud.core.db.compiled_reads import CompiledRead, Fields, scope_bindparams, scope_values
from printcloud.core.db.compiled_writes import CompiledWrite
from printcloud.core.db.database import AnyRow, Database, rows_affected
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.db.list_filters import JobFilters
from printcloud.core.db.paging import Page, PageRequest, fetch_page
from printcloud.core.ids import uuid7
from printcloud.core.scope import Scope
from printcloud.jobs.domain.job import Job
from printcloud.jobs.domain.states import ACTIVE_STATES, QUEUED, TERMINAL_STATES
from printcloud.jobs.domain.usage import OverLimit, month_of
from printcloud.jobs.persistence import printer_facts
from printcloud.jobs.persistence.tables import (
    SCHEMA,
    job_state_changes,
    live_print_counts,
    outbox,
    pending_fetches,
    print_jobs,
    stored_file_chunks,
    stored_files,
    test_job_counts,
)

_JOB_COLUMNS: tuple[str, ...] = tuple(column.name for column in print_jobs.c)
_STATE_CHANGE_COLUMNS = ("id", "job_id", "organization_id", "mode", "state", "message", "actor", "created_at")


class _JobBundle(Bundle[Job]):
    """A `print_jobs` row read by a session as a `Job` (`fetch_page` reads a page's items as scalars)."""

    def create_row_processor(self, query: Any, procs: Any, labels: Any) -> Any:
        def job(row: Row[Any]) -> Job:
            return Job(**{label: proc(row) for label, proc in zip(labels, procs, strict=True)})

        return job


_job = _JobBundle("job", *print_jobs.c)


def _job_of(row: Fields | None) -> Job | None:
    return Job(**dict(row.items())) if row is not None else None


def _bound(table_columns: Any, names: Sequence[str], prefix: str) -> dict[str, Any]:
    """Named bindparams for `names`, typed by their columns (a value of a JSON column is sent as text)."""
    return {name: bindparam(f"{prefix}{name}", type_=table_columns[name].type) for name in names}


def _prefixed(values: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {f"{prefix}{name}": value for name, value in values.items()}


def _one_statement(*changes: Insert | Update | Delete) -> Insert | Update | Delete:
    """The last of `changes` with the others as its CTEs: one statement, one round trip. They touch
    different rows, and PostgreSQL checks foreign keys at the statement's end, so a job and its
    state-change row may be written together."""
    *before, last = changes
    if not before:
        return last
    return last.add_cte(*(change.cte(f"change_{n}") for n, change in enumerate(before)))


_file_row = insert(stored_files).values(_bound(stored_files.c, [c.name for c in stored_files.c], "file_"))
_chunk_row = insert(stored_file_chunks).values(_bound(stored_file_chunks.c, ("file_id", "seq", "data"), "chunk_"))
_add_file = CompiledWrite.of(_file_row)
_add_chunk = CompiledWrite.of(_chunk_row)
# The file and its first piece together: most documents are one piece.
_add_file_and_chunk = CompiledWrite.of(_one_statement(_file_row, _chunk_row))


@dataclass(frozen=True)
class NewFile:
    """A document to store: its `stored_files` row and its pieces, each one statement's worth, so
    that the driver never builds a message the size of the whole file."""

    row: dict[str, Any]
    pieces: list[memoryview]

    @property
    def id(self) -> uuid.UUID:
        file_id: uuid.UUID = self.row["id"]
        return file_id

    def values(self) -> dict[str, Any]:
        """The bound values of the file's row and of its first piece (`_file_row`, `_chunk_row`)."""
        first = {"file_id": self.id, "seq": 0, "data": self.pieces[0]} if self.pieces else {}
        return {**_prefixed(self.row, "file_"), **_prefixed(first, "chunk_")}

    def rows(self) -> tuple[Insert, ...]:
        """The inserts `values` fills: the file's row, and its first piece when it has any."""
        return (_file_row, _chunk_row) if self.pieces else (_file_row,)

    async def add_other_pieces(self, transaction: DriverTransaction) -> None:
        for seq, piece in enumerate(self.pieces[1:], start=1):
            await transaction.execute(
                _add_chunk, **_prefixed({"file_id": self.id, "seq": seq, "data": piece}, "chunk_")
            )


def new_file(
    scope: Scope,
    content: bytes | bytearray,
    sha256: str,
    created_at: datetime,
    expires_at: datetime,
    chunk_bytes: int,
) -> NewFile:
    row = {
        "id": uuid7(),
        "organization_id": scope.organization_id,
        "mode": scope.mode,
        "sha256": sha256,
        "size": len(content),
        "created_at": created_at,
        "expires_at": expires_at,
    }
    view = memoryview(content)
    return NewFile(row, [view[offset : offset + chunk_bytes] for offset in range(0, len(content), chunk_bytes)])


async def add_file(transaction: DriverTransaction, file: NewFile) -> uuid.UUID:
    await transaction.execute(_add_file_and_chunk if file.pieces else _add_file, **file.values())
    await file.add_other_pieces(transaction)
    return file.id


def state_change_row(job: Job, message: str | None, actor: str, created_at: datetime) -> dict[str, Any]:
    """The state-change row recording the state `job` is in now."""
    return {
        "id": uuid7(),
        "job_id": job.id,
        "organization_id": job.organization_id,
        "mode": job.mode,
        "state": job.state,
        "message": message,
        "actor": actor,
        "created_at": created_at,
    }


def _state_change_insert() -> Insert:
    return insert(job_state_changes).values(_bound(job_state_changes.c, _STATE_CHANGE_COLUMNS, "change_"))


# What `count_within_limit` (migration 0017) raises for a job past its organization's limit.
_OVER_LIMIT = "PCL01"


@functools.cache
def _new_job(mode: str, file_rows: tuple[Insert, ...], messages: int) -> CompiledRead:
    """The job counted against its organization's limit of `mode` (`most`), its file's `file_rows`
    (`NewFile.rows`, none without a file), the job, its first state-change row and `messages` outbox
    rows, in one statement, which fails as a whole when the count passes the limit or when the
    scope's printer facts changed since the job's printer was read. The count's row lock serializes
    an organization's creations while the statement runs, or until the commit of a transaction
    around it."""
    counted = _COUNTING[mode].cte("counted")
    job = insert(print_jobs).values(_bound(print_jobs.c, _JOB_COLUMNS, "job_"))
    changes = [*file_rows, job, _state_change_insert(), outbox.insert_of(messages)]
    checks = getattr(func, SCHEMA)
    within = checks.count_within_limit(counted.c.count, bindparam("most", type_=BigInteger))
    job_scope = _bound(print_jobs.c, ("organization_id", "mode"), "job_")
    facts = printer_facts.generation_of_scope(job_scope["organization_id"], job_scope["mode"])
    hold = checks.printer_facts_hold(bindparam("facts_generation", type_=BigInteger), facts)
    return CompiledRead.of(
        select(within.label("count"), hold.label("facts")).add_cte(
            *(change.cte(f"change_{n}") for n, change in enumerate(changes))
        )
    )


async def add_job(
    writer: Database | DriverTransaction,
    job: Job,
    state_change: Mapping[str, Any],
    messages: Sequence[dict[str, Any]],
    *,
    count: Mapping[str, Any],
    most: int | None,
    file: NewFile | None,
    facts_generation: int,
) -> None:
    """Counts the job (`count`: the values of `count_values`), writes its `file`'s row and first
    piece when it brings one, the job, its first state change (`state_change_row`) and the outbox
    rows that announce it, in one statement: a transaction by itself on `Database`, or part of the
    caller's. Raises `OverLimit`, with nothing written, when the count would pass `most` (test jobs
    of the day, or live prints of the month; None for no limit). Raises `FactsChanged`, with nothing
    written, when the scope's printer facts are no longer at `facts_generation`, the generation the
    job's printer was read at."""
    values = {name: getattr(job, name) for name in _JOB_COLUMNS}
    statement = _new_job(job.mode, () if file is None else file.rows(), len(messages))
    try:
        await writer.fetch(
            statement,
            **count,
            most=most,
            facts_generation=facts_generation,
            **(file.values() if file is not None else {}),
            **_prefixed(values, "job_"),
            **_prefixed(state_change, "change_"),
            **outbox.values_of(messages),
        )
    except asyncpg.PostgresError as error:
        if error.sqlstate == _OVER_LIMIT:
            raise OverLimit from None
        if error.sqlstate == printer_facts.FACTS_CHANGED:
            raise printer_facts.FactsChanged from None
        raise


@functools.cache
def _job_change(columns: tuple[str, ...], recorded: bool, messages: int) -> CompiledWrite:
    """An UPDATE of a job's `columns` alone, with its state-change row when `recorded` and
    `messages` outbox rows, in one statement; compiled once for each such shape."""
    job = update(print_jobs).where(print_jobs.c.id == bindparam("job_id")).values(_bound(print_jobs.c, columns, "job_"))
    changes: list[Insert | Update | Delete] = [job]
    if recorded:
        changes.append(_state_change_insert())
    if messages:
        changes.append(outbox.insert_of(messages))
    return CompiledWrite.of(_one_statement(*changes))


def change_job(
    transaction: DriverTransaction,
    job_id: uuid.UUID,
    changes: Mapping[str, Any],
    state_change: Mapping[str, Any] | None = None,
    messages: Sequence[dict[str, Any]] = (),
) -> None:
    """Writes `changes` (column: value) to the job, with the state change that records them
    (`state_change_row`) and the outbox rows they call for, in the transaction's queue
    (`DriverTransaction.queue`): a batch's changes of one shape go to the database together."""
    statement = _job_change(tuple(changes), state_change is not None, len(messages))
    transaction.queue(
        statement,
        job_id=job_id,
        **_prefixed(changes, "job_"),
        **_prefixed(state_change or {}, "change_"),
        **outbox.values_of(messages),
    )


def _in_scope(scope: Scope) -> ColumnElement[bool]:
    return _in(scope.organization_id, scope.mode)


def _in(organization_id: Any, mode: Any) -> ColumnElement[bool]:
    """The scope's condition on values, or on named bindparams of a compiled read."""
    return and_(print_jobs.c.organization_id == organization_id, print_jobs.c.mode == mode)


# `GET /v1/printjobs/{id}`, the hottest read of jobs, is a compiled read (`core.db.compiled_reads`).
_job_in_scope = CompiledRead.of(
    select(print_jobs).where(print_jobs.c.id == bindparam("job_id"), _in(*scope_bindparams()))
)


_computer_job = CompiledRead.of(
    select(print_jobs).where(
        print_jobs.c.id == bindparam("job_id"), print_jobs.c.computer_id == bindparam("computer_id")
    )
)
# Locked until the transaction ends, so concurrent changes of one job serialize.
_locked_job_in_scope = CompiledRead.of(
    select(print_jobs).where(print_jobs.c.id == bindparam("job_id"), _in(*scope_bindparams())).with_for_update()
)
_locked_computer_job = CompiledRead.of(
    select(print_jobs)
    .where(print_jobs.c.id == bindparam("job_id"), print_jobs.c.computer_id == bindparam("computer_id"))
    .with_for_update()
)
_locked_job = CompiledRead.of(select(print_jobs).where(print_jobs.c.id == bindparam("job_id")).with_for_update())

# A batch's jobs are locked by statements that take each id as a parameter of its own
# (`core.db.value_lists`), in id order: two transactions locking several jobs never wait on each
# other in a cycle.
_SMALL_FILE = "small_file"


def _id_parameters(count: int) -> list[BindParameter[Any]]:
    return [bindparam(f"job_id_{n}", type_=UUID(as_uuid=True)) for n in range(count)]


@functools.cache
def _locked_jobs(count: int) -> CompiledRead:
    return CompiledRead.of(
        select(print_jobs).where(print_jobs.c.id.in_(_id_parameters(count))).order_by(print_jobs.c.id).with_for_update()
    )


@functools.cache
def _claimed_jobs(count: int) -> CompiledRead:
    """As `_locked_jobs`, each job with its file when it is small enough to travel inside the job's
    message: the push then costs no read of its own."""
    return CompiledRead.of(
        select(print_jobs, stored_file_chunks.c.data.label(_SMALL_FILE))
        .select_from(
            print_jobs.outerjoin(
                stored_file_chunks,
                and_(
                    stored_file_chunks.c.file_id == print_jobs.c.file_id,
                    stored_file_chunks.c.seq == literal_column("0"),
                    print_jobs.c.file_size > literal_column("0"),
                    print_jobs.c.file_size <= bindparam("content_up_to"),
                ),
            )
        )
        .where(print_jobs.c.id.in_(_id_parameters(count)))
        .order_by(print_jobs.c.id)
        .with_for_update(of=print_jobs)
    )


def _in_parts(job_ids: Sequence[uuid.UUID]) -> Iterator[tuple[int, dict[str, uuid.UUID]]]:
    """`job_ids` distinct and in order, in the parts a batch is locked in: each part's count of
    parameters and their values."""
    for part in value_lists.parts(sorted(set(job_ids))):
        yield len(part), {f"job_id_{n}": job_id for n, job_id in enumerate(part)}


async def read_job(db: Database, scope: Scope, job_id: uuid.UUID) -> Job | None:
    """A job as it stands, outside any transaction."""
    return _job_of(await db.fetch_one(_job_in_scope, job_id=job_id, **scope_values(scope)))


async def read_computer_job(db: Database, computer_id: uuid.UUID, job_id: uuid.UUID) -> Job | None:
    """A job as its computer's agent sees it (unscoped, but only that computer's jobs), outside any
    transaction: the check before every download."""
    return _job_of(await db.fetch_one(_computer_job, job_id=job_id, computer_id=computer_id))


async def get_job(transaction: DriverTransaction, scope: Scope, job_id: uuid.UUID) -> Job | None:
    """A job in the transaction, not locked."""
    return _job_of(await transaction.fetchrow(_job_in_scope, job_id=job_id, **scope_values(scope)))


async def lock_job(transaction: DriverTransaction, scope: Scope, job_id: uuid.UUID) -> Job | None:
    """The job, its row held until the transaction ends, so concurrent changes of one job serialize."""
    return _job_of(await transaction.fetchrow(_locked_job_in_scope, job_id=job_id, **scope_values(scope)))


async def lock_computer_job(transaction: DriverTransaction, computer_id: uuid.UUID, job_id: uuid.UUID) -> Job | None:
    """As `lock_job`, for the job's computer's agent: unscoped, but only that computer's jobs."""
    return _job_of(await transaction.fetchrow(_locked_computer_job, job_id=job_id, computer_id=computer_id))


async def lock_claimed_jobs(
    transaction: DriverTransaction, job_ids: Sequence[uuid.UUID], content_up_to: int
) -> dict[uuid.UUID, tuple[Job, bytes | None]]:
    """The jobs of `job_ids` that exist, locked until the transaction ends as `lock_jobs` locks
    them, each with its whole file when that has at most `content_up_to` bytes and is stored in one
    chunk (None otherwise)."""
    claimed: dict[uuid.UUID, tuple[Job, bytes | None]] = {}
    for count, ids in _in_parts(job_ids):
        for row in await transaction.fetch(_claimed_jobs(count), content_up_to=content_up_to, **ids):
            fields = dict(row.items())
            small_file: bytes | None = fields.pop(_SMALL_FILE)
            job = Job(**fields)
            claimed[job.id] = job, small_file
    return claimed


async def lock_job_by_id(transaction: DriverTransaction, job_id: uuid.UUID) -> Job | None:
    """As `lock_job`, for the service's own workers, which hold a job id rather than a caller's scope."""
    return _job_of(await transaction.fetchrow(_locked_job, job_id=job_id))


async def lock_jobs(transaction: DriverTransaction, job_ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Job]:
    """The jobs of `job_ids` that exist, locked until the transaction ends, taken in id order."""
    locked: dict[uuid.UUID, Job] = {}
    for count, ids in _in_parts(job_ids):
        for row in await transaction.fetch(_locked_jobs(count), **ids):
            job = Job(**dict(row.items()))
            locked[job.id] = job
    return locked


async def list_jobs(session: AsyncSession, scope: Scope, filters: JobFilters, page: PageRequest) -> Page[Job]:
    query = select(_job).where(_in_scope(scope))
    if filters.printer_id is not None:
        query = query.where(print_jobs.c.printer_id == filters.printer_id)
    if filters.computer_id is not None:
        query = query.where(print_jobs.c.computer_id == filters.computer_id)
    if filters.state is not None:
        query = query.where(print_jobs.c.state == filters.state)
    if filters.created_from is not None:
        query = query.where(print_jobs.c.created_at >= filters.created_from)
    if filters.created_to is not None:
        query = query.where(print_jobs.c.created_at <= filters.created_to)
    if filters.title_contains is not None:
        # Read in id order within the scope, stopping once a page has matched: no index here serves a
        # substring, and the page's limit bounds the rows returned, not the rows read.
        query = query.where(print_jobs.c.title.icontains(filters.title_contains, autoescape=True))
    return await fetch_page(session, query, print_jobs.c.id, page)


async def list_state_changes(session: AsyncSession, job_id: uuid.UUID) -> Sequence[AnyRow]:
    """Oldest first; callers find the job in scope first."""
    query = select(job_state_changes).where(job_state_changes.c.job_id == job_id).order_by(job_state_changes.c.id)
    return (await session.execute(query)).all()


async def list_pending_jobs(session: AsyncSession, computer_id: uuid.UUID) -> Sequence[Job]:
    query = (
        select(_job)
        # A job without its file yet (URL content being fetched) is delivered once fetched.
        .where(print_jobs.c.computer_id == computer_id, print_jobs.c.state == QUEUED, print_jobs.c.file_id.is_not(None))
        .order_by(print_jobs.c.id)
    )
    return (await session.execute(query)).scalars().all()


_file_chunk = CompiledRead.of(
    select(stored_file_chunks.c.data).where(
        stored_file_chunks.c.file_id == bindparam("file_id"), stored_file_chunks.c.seq == bindparam("seq")
    )
)


async def read_file_chunk(db: Database, file_id: uuid.UUID, seq: int) -> bytes | None:
    """Piece `seq` of a stored file, or None past its end or when the file is gone (a compiled
    read: every job's download reads its file)."""
    row = await db.fetch_one(_file_chunk, file_id=file_id, seq=seq)
    return row.data if row is not None else None


_live_file = CompiledRead.of(
    select(stored_files.c.id).where(
        stored_files.c.id == bindparam("file_id"),
        stored_files.c.organization_id == bindparam("organization_id"),
        stored_files.c.mode == bindparam("mode"),
        stored_files.c.expires_at > bindparam("now"),
    )
)


async def live_file(
    reader: Database | DriverTransaction, scope: Scope, file_id: uuid.UUID | None, now: datetime
) -> bool:
    """Whether the stored file is still kept (not past its retention, not purged), read outside
    any transaction or in `reader`."""
    if file_id is None:
        return False
    values = {"file_id": file_id, "now": now, **scope_values(scope)}
    if isinstance(reader, Database):
        return await reader.fetch_one(_live_file, **values) is not None
    return await reader.fetchrow(_live_file, **values) is not None


async def purge_files(session: AsyncSession, now: datetime) -> int:
    """Deletes files past their retention, except those a job still on its way to the agent needs."""
    still_needed = exists().where(
        print_jobs.c.file_id == stored_files.c.id, print_jobs.c.state.not_in(list(TERMINAL_STATES))
    )
    return await rows_affected(session, delete(stored_files).where(stored_files.c.expires_at <= now, ~still_needed))


_TEST_JOB_COUNTING = (
    insert(test_job_counts)
    .values(organization_id=bindparam("organization_id"), day=bindparam("day"), jobs=literal_column("1"))
    .on_conflict_do_update(
        index_elements=[test_job_counts.c.organization_id, test_job_counts.c.day],
        set_={"jobs": test_job_counts.c.jobs + literal_column("1")},
    )
    .returning(test_job_counts.c.jobs.label("count"))
)
_LIVE_PRINT_COUNTING = (
    insert(live_print_counts)
    .values(organization_id=bindparam("organization_id"), month=bindparam("month"), prints=bindparam("prints"))
    .on_conflict_do_update(
        index_elements=[live_print_counts.c.organization_id, live_print_counts.c.month],
        set_={"prints": live_print_counts.c.prints + bindparam("prints")},
    )
    .returning(live_print_counts.c.prints.label("count"))
)
_COUNTING: dict[str, ReturningInsert[Any]] = {Mode.test: _TEST_JOB_COUNTING, Mode.live: _LIVE_PRINT_COUNTING}


def count_values(scope: Scope, at: datetime, prints: int) -> dict[str, Any]:
    """What a job created `at` adds to its organization's count: one test job of the day in test
    mode, `prints` live prints of the month in live mode."""
    if scope.mode == Mode.test:
        return {"organization_id": scope.organization_id, "day": at.date()}
    return {"organization_id": scope.organization_id, "month": month_of(at), "prints": prints}


async def usage_counts(session: AsyncSession, organization_id: uuid.UUID, month: date, day: date) -> tuple[int, int]:
    """(live prints of `month`, test jobs of `day`) of the organization."""
    live = await session.scalar(
        select(live_print_counts.c.prints).where(
            live_print_counts.c.organization_id == organization_id, live_print_counts.c.month == month
        )
    )
    test = await session.scalar(
        select(test_job_counts.c.jobs).where(
            test_job_counts.c.organization_id == organization_id, test_job_counts.c.day == day
        )
    )
    return live or 0, test or 0


_add_pending_fetch = CompiledWrite.of(
    insert(pending_fetches).values(
        _bound(pending_fetches.c, ("job_id", "url", "auth_user", "auth_pass", "expires_at"), "")
    )
)
_delete_pending_fetch = CompiledWrite.of(delete(pending_fetches).where(pending_fetches.c.job_id == bindparam("job_id")))


async def add_pending_fetch(
    transaction: DriverTransaction,
    job_id: uuid.UUID,
    url: str,
    auth: tuple[str, str] | None,
    expires_at: datetime,
) -> None:
    user, password = auth if auth is not None else (None, None)
    await transaction.execute(
        _add_pending_fetch, job_id=job_id, url=url, auth_user=user, auth_pass=password, expires_at=expires_at
    )


async def claim_pending_fetch(session: AsyncSession, now: datetime, claim_until: datetime) -> AnyRow | None:
    """One unexpired fetch nobody holds, now held until `claim_until`; SKIP LOCKED lets replicas share."""
    candidate = (
        select(pending_fetches.c.job_id)
        .where(
            pending_fetches.c.expires_at > now,
            or_(pending_fetches.c.claimed_until.is_(None), pending_fetches.c.claimed_until <= now),
        )
        .order_by(pending_fetches.c.job_id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    statement = (
        update(pending_fetches)
        .where(pending_fetches.c.job_id == candidate)
        .values(claimed_until=claim_until)
        .returning(pending_fetches)
    )
    claimed: AnyRow | None = (await session.execute(statement)).first()
    return claimed


async def delete_pending_fetch(transaction: DriverTransaction, job_id: uuid.UUID) -> None:
    await transaction.execute(_delete_pending_fetch, job_id=job_id)


async def take_expired_fetches(session: AsyncSession, now: datetime) -> Sequence[uuid.UUID]:
    """Deletes fetches held past their hour and returns their jobs."""
    statement = delete(pending_fetches).where(pending_fetches.c.expires_at <= now).returning(pending_fetches.c.job_id)
    return (await session.execute(statement)).scalars().all()


async def count_active_by_state(session: AsyncSession) -> dict[tuple[str, str], int]:
    """Jobs not yet in a final state, by (state, mode), from the partial index that holds only them."""
    rows = await session.execute(
        select(print_jobs.c.state, print_jobs.c.mode, func.count())
        .where(print_jobs.c.state.in_(ACTIVE_STATES))
        .group_by(print_jobs.c.state, print_jobs.c.mode)
    )
    return {(state, mode): count for state, mode, count in rows}
