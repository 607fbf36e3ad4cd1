"""The print job use cases of the API and the agent: each one a transaction that applies the
domain rules to stored jobs.

Every state change locks the job row and goes through `state_changes.change_state`, which writes
the job, one state-change row and its event in that transaction, so concurrent reports of one job
serialize and none is half-recorded. Changes run in driver transactions
(`core.db.driver_transaction`): the creation and the agent's reports are the hottest path of the
service. A creation that is one statement and nothing else is sent alone, a transaction by itself.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from opentelemetry.trace import SpanKind

from printcloud.contracts.enums import Actor
from printcloud.contracts.errors import ApiError, not_found
from printcloud.core.db.database import AnyRow, Database
from printcloud.core.db.driver_transaction import DriverTransaction
from printcloud.core.db.list_filters import JobFilters
from printcloud.core.db.paging import Page, PageRequest
from printcloud.core.http.egress import EgressGuard, EgressRefused
from printcloud.core.ids import uuid7
from printcloud.core.kafka import agent_commands
from printcloud.core.scope import Scope
from printcloud.core.telemetry.traces import activate_carrier
from printcloud.core.timeutil import isoformat
from printcloud.jobs.domain import events, states
from printcloud.jobs.domain.capabilities import custom_paper_named, fit_to_printer, join_messages
from printcloud.jobs.domain.idempotency import IdempotencyClaim, StoredAnswer, in_progress, replayed_answer
from printcloud.jobs.domain.job import CustomPaper, Job, ShownJob
from printcloud.jobs.domain.options import with_defaults
from printcloud.jobs.domain.submission import (
    PDF_MAGIC,
    PDF_URI,
    AcceptedSubmission,
    Submission,
    accept,
    check_content,
    is_raw,
)
from printcloud.jobs.domain.usage import PRINTS_PER_JOB, OverLimit, UsageCounts, day_bounds, month_bounds, month_of
from printcloud.jobs.persistence import idempotency as idempotency_keys
from printcloud.jobs.persistence import repository
from printcloud.jobs.persistence.printer_facts import FactsChanged
from printcloud.jobs.use_cases import clock, deliveries
from printcloud.jobs.use_cases.deliveries import FILE_CHUNK_BYTES, Claim, DeliveryClaim
from printcloud.jobs.use_cases.off_loop import cpu_bound
from printcloud.jobs.use_cases.printer_conditions import shown_job, shown_page
from printcloud.jobs.use_cases.printer_facts import KeptPrinter, KnownPrinters, PrinterDirectory
from printcloud.jobs.use_cases.state_changes import change_state, refusal, state_changed, to_agent
from printcloud.v1 import devices_pb2, jobs_pb2

FILE_RETENTION = timedelta(days=7)
TEST_JOBS_PER_DAY = 500
# The URL and credentials of URL content are held at most this long (spec "Limits").
PENDING_FETCH_LIFETIME = timedelta(hours=1)
TEST_MODE = "test"
_OTHER_MODE = {"live": "test", "test": "live"}
# A create whose printer's scope changed since it read the printer reads it again; one that keeps
# finding it changed (the scope's printers forgotten again and again meanwhile) gives up.
_READS_OF_CHANGED_PRINTERS = 3
# States in which the job's agent may download the file.
_DOWNLOADABLE_STATES = frozenset({states.SENT, states.RECEIVED, states.PRINTING})


@dataclass(frozen=True)
class CreatedJob:
    """The answer to a create: the new job, or for a repeated idempotency key the first answer."""

    job: jobs_pb2.PrintJob
    replayed: bool


def _alone(accepted: AcceptedSubmission, idempotency: IdempotencyClaim | None) -> bool:
    """Whether a create is its one statement and nothing else, so that it needs no BEGIN and COMMIT
    of its own (two of its three round trips to the database): no key to record, no URL to queue, no
    original to read, and a document of at most one piece."""
    return (
        idempotency is None
        and accepted.url is None
        and accepted.reprint_of is None
        and len(accepted.content or b"") <= FILE_CHUNK_BYTES
    )


def _in_transaction(writer: Database | DriverTransaction) -> DriverTransaction:
    """The transaction that a create of several statements runs in (`_alone` keeps the others out)."""
    assert isinstance(writer, DriverTransaction), "a create of several statements runs in a transaction"
    return writer


def _sha256_hex(content: bytes | bytearray) -> str:
    return hashlib.sha256(content).hexdigest()


def _printer_json(text: str) -> object:
    """A free-form printer object (defaults, capabilities); unreadable counts as empty."""
    try:
        return json.loads(text or "{}")
    except ValueError:
        return {}


@dataclass(frozen=True)
class JobLimits:
    """The spec's limits that are settings, so tests can reach them without waiting a week."""

    file_retention: timedelta = FILE_RETENTION
    test_jobs_per_day: int = TEST_JOBS_PER_DAY


def _options_for(
    content_type: str, options: dict[str, Any], printer: devices_pb2.Printer
) -> tuple[dict[str, Any], list[str], CustomPaper | None]:
    """The options stored with a job, the warnings for those the printer cannot honour, and the
    custom paper (with its size) that `paper` names, if it names one."""
    if is_raw(content_type):
        # Raw data goes to the printer untouched: options are kept as sent, never applied.
        return options, [], None
    capabilities = _printer_json(printer.capabilities_json)
    fitted = fit_to_printer(
        with_defaults(options, _printer_json(printer.default_options_json)),
        capabilities,
        [paper.name for paper in printer.custom_papers],
    )
    return fitted.options, fitted.warnings, custom_paper_named(fitted.options, capabilities, printer.custom_papers)


@dataclass(frozen=True)
class StateReport:
    """An agent's report of its job's state, as the agent-gateway forwards it."""

    computer_id: uuid.UUID
    job_id: uuid.UUID
    state: str
    message: str | None
    trace: Mapping[str, str] = field(default_factory=dict)


def _unknown_state(state: str) -> ApiError | None:
    if state in states.AGENT_REPORTED_STATES:
        return None
    return ApiError("invalid_request", "An agent reports one of " + ", ".join(states.AGENT_REPORTED_STATES) + ".")


async def _record_report(transaction: DriverTransaction, job: Job, state: str, message: str | None) -> None:
    """Moves the locked `job` to the state its agent reports; `409 conflict`, with nothing changed,
    when the state machine refuses."""
    if job.state == state:
        # Agents resend reports they are unsure were delivered; the first one counted.
        return
    if (refused := refusal(job, state, Actor.agent)) is not None:
        raise refused
    also = None
    if state in (states.DONE, states.ERROR):
        # The agent's final message (its reason, or options its OS dropped) joins the
        # warnings the service recorded at creation.
        also = {"state_message": join_messages(job.state_message, message)}
    await change_state(transaction, job, state, Actor.agent, clock.now(), message, also=also)


def _replay_of(claim: IdempotencyClaim, stored: StoredAnswer) -> CreatedJob:
    first = replayed_answer(claim, stored)
    return CreatedJob(jobs_pb2.PrintJob.FromString(first), replayed=True)


class JobService:
    def __init__(
        self,
        db: Database,
        printers: PrinterDirectory,
        *,
        egress: EgressGuard | None = None,
        limits: JobLimits | None = None,
        new_jobs_topic: str | None = None,
    ) -> None:
        self.db = db
        self.printers = printers
        self.known_printers = KnownPrinters(db, printers)
        self.egress = egress or EgressGuard()
        self.limits = limits or JobLimits()
        # The topic recorded on the jobs this process creates, which carries all their events;
        # none: `printcloud.domain-events`.
        self.new_jobs_topic = new_jobs_topic
        # Set by the process wiring to wake the content fetcher right after a URL job is created.
        self.fetch_requested: Callable[[], None] = lambda: None

    async def forget_printers(self, scope: Scope) -> None:
        """Devices changed printers of `scope`: the next create for each asks it again."""
        await self.known_printers.forget([scope])

    async def _printer(self, scope: Scope, printer_id: uuid.UUID) -> KeptPrinter:
        """The printer in `scope`, enabled. One of the caller's organization in the other mode is
        `422 mode_mismatch` (the spec's answer for a job on the wrong mode), anything else 404; a
        printer that is not enabled `422 printer_disabled`."""
        kept = await self._printer_in_scope(scope, printer_id)
        if not kept.printer.enabled:
            raise ApiError("printer_disabled", "The printer is not live (`enabled` is false).")
        return kept

    async def _printer_in_scope(self, scope: Scope, printer_id: uuid.UUID) -> KeptPrinter:
        try:
            return await self.known_printers.printer(scope, printer_id)
        except ApiError as error:
            if error.code != "not_found":
                raise
            other = Scope(scope.organization_id, _OTHER_MODE[scope.mode])
            try:
                await self.printers.get_printer(other, printer_id)
            except ApiError:
                raise error from None
            raise ApiError(
                "mode_mismatch", f"The printer is a {other.mode} printer; this key is {scope.mode}."
            ) from None

    async def _check_content_url(self, url: str) -> None:
        try:
            self.egress.check_url(url)
            # The port rule holds at creation whatever the host: a name is resolved to see whether
            # the allowlist exempts it, rather than failing the job at fetch time.
            await self.egress.check_port(url)
        except EgressRefused as refused:
            raise ApiError("invalid_content_url", refused.reason) from None

    def _limit(self, scope: Scope, quota: int | None) -> int | None:
        """The most jobs of `scope`'s mode its organization may count in the period: test jobs of the
        day, or live prints of the month (None: no quota)."""
        return self.limits.test_jobs_per_day if scope.mode == TEST_MODE else quota

    def _over_limit(self, scope: Scope, now: datetime, quota: int | None) -> ApiError:
        """The refusal of a job past its organization's limit; the statement that would have counted
        it failed, so it is not counted, and the count is exact under concurrency."""
        if scope.mode == TEST_MODE:
            return ApiError(
                "test_mode_daily_cap", f"More than {self.limits.test_jobs_per_day} test jobs in this UTC day."
            )
        _, period_end = month_bounds(now)
        return ApiError(
            "quota_exceeded",
            f"This organization's plan allows {quota} live prints per calendar month (UTC), all used;"
            f" the count starts again at {isoformat(period_end)}. Upgrade the plan to print more now.",
        )

    async def usage(self, scope: Scope) -> UsageCounts:
        now = clock.now()
        async with self.db.read() as session:
            live, test = await repository.usage_counts(session, scope.organization_id, month_of(now), now.date())
        return UsageCounts(month_bounds(now), day_bounds(now), live, test, self.limits.test_jobs_per_day)

    async def _reprinted_file(
        self, transaction: DriverTransaction, scope: Scope, original_id: uuid.UUID, now: datetime
    ) -> Job:
        original = await repository.get_job(transaction, scope, original_id)
        if original is None:
            raise not_found("print job to reprint")
        if not await repository.live_file(transaction, scope, original.file_id, now):
            raise ApiError("file_expired", "The stored file of that job is gone (files are kept 7 days).")
        return original

    async def _replay(self, scope: Scope, claim: IdempotencyClaim) -> CreatedJob | None:
        """The first answer for a key already used, found before any other work; the creating
        transaction checks again under the key's lock, which is what decides."""
        stored = await idempotency_keys.find(self.db, scope.organization_id, claim.key, clock.now())
        return None if stored is None else _replay_of(claim, stored)

    async def create_job(
        self,
        scope: Scope,
        submission: Submission,
        live_print_quota: int | None = None,
        idempotency: IdempotencyClaim | None = None,
    ) -> CreatedJob:
        if idempotency is not None and (replay := await self._replay(scope, idempotency)) is not None:
            return replay
        accepted = accept(submission)
        printer = await self._printer(scope, accepted.printer_id)
        if accepted.url is not None:
            await self._check_content_url(accepted.url)
        sha256 = ""
        if accepted.content is not None:
            check_content(accepted.content_type or "", accepted.content)
            sha256 = await cpu_bound(len(accepted.content), _sha256_hex, accepted.content)
        for _ in range(_READS_OF_CHANGED_PRINTERS):
            try:
                return await self._store_job(scope, accepted, printer, sha256, live_print_quota, idempotency)
            except FactsChanged:
                # Printers of the scope changed since this replica read them: read them again.
                self.known_printers.drop_from_memory(scope)
                printer = await self._printer(scope, accepted.printer_id)
        raise ApiError("service_unavailable", "The printer kept changing while the job was created; try again.")

    async def _store_job(
        self,
        scope: Scope,
        accepted: AcceptedSubmission,
        printer: KeptPrinter,
        sha256: str,
        live_print_quota: int | None,
        idempotency: IdempotencyClaim | None,
    ) -> CreatedJob:
        now = clock.now()
        if _alone(accepted, idempotency):
            job = await self._add_job(self.db, scope, accepted, printer, sha256, live_print_quota, now)
            return CreatedJob(events.published_job(job), replayed=False)
        async with self.db.driver_transaction() as transaction:
            if idempotency is not None:
                if not await idempotency_keys.lock(transaction, scope.organization_id, idempotency.key):
                    raise in_progress()
                stored = await idempotency_keys.find(transaction, scope.organization_id, idempotency.key, now)
                if stored is not None:
                    return _replay_of(idempotency, stored)
            job = await self._add_job(transaction, scope, accepted, printer, sha256, live_print_quota, now)
            answer = events.published_job(job)
            if idempotency is not None:
                await idempotency_keys.record(
                    transaction,
                    scope.organization_id,
                    idempotency.key,
                    idempotency.fingerprint,
                    job.id,
                    answer.SerializeToString(),
                    now,
                )
        if accepted.url is not None:
            self.fetch_requested()
        return CreatedJob(answer, replayed=False)

    async def _add_job(
        self,
        writer: Database | DriverTransaction,
        scope: Scope,
        accepted: AcceptedSubmission,
        kept: KeptPrinter,
        sha256: str,
        live_print_quota: int | None,
        now: datetime,
    ) -> Job:
        """Counts, stores and announces a new job, by itself on `Database` when `_alone` says it
        may be, else in the caller's transaction."""
        file: repository.NewFile | None = None
        if accepted.reprint_of is not None:
            original = await self._reprinted_file(_in_transaction(writer), scope, accepted.reprint_of, now)
            content_type = original.content_type
            file_id, sha256, size = original.file_id, original.file_sha256, original.file_size
        elif accepted.content is not None:
            content_type, size = accepted.content_type or "", len(accepted.content)
            file = repository.new_file(
                scope, accepted.content, sha256, now, now + self.limits.file_retention, FILE_CHUNK_BYTES
            )
            file_id = file.id
        else:
            # URL content: digest and size are known once the fetcher has stored the file.
            content_type, file_id, size = accepted.content_type or "", None, 0
        printer = kept.printer
        options, warnings, custom_paper = _options_for(content_type, accepted.options, printer)
        job = Job(
            id=uuid7(),
            organization_id=scope.organization_id,
            mode=scope.mode,
            printer_id=accepted.printer_id,
            computer_id=uuid.UUID(printer.computer_id),
            printer_name=printer.name,
            title=accepted.title,
            content_type=content_type,
            source=accepted.source,
            qty=accepted.qty,
            options=options,
            custom_paper=custom_paper,
            expire_after=accepted.expire_after,
            expires_at=now + timedelta(seconds=accepted.expire_after),
            file_id=file_id,
            file_sha256=sha256,
            file_size=size,
            state=states.INITIAL_STATE,
            state_message=join_messages(*warnings),
            send_count=0,
            created_at=now,
            events_topic=self.new_jobs_topic,
        )
        # Its first state and event; a URL job is sent to its agent once its file is stored.
        announced = [state_changed(job)]
        if accepted.url is None:
            announced.append(to_agent(job, events.agent_command(job, agent_commands.JOB_DELIVER)))
        try:
            await repository.add_job(
                writer,
                job,
                repository.state_change_row(job, None, Actor.api, now),
                announced,
                count=repository.count_values(scope, now, PRINTS_PER_JOB),
                most=self._limit(scope, live_print_quota),
                file=file,
                facts_generation=kept.generation,
            )
        except OverLimit:
            raise self._over_limit(scope, now, live_print_quota) from None
        if file is not None and len(file.pieces) > 1:
            await file.add_other_pieces(_in_transaction(writer))
        if accepted.url is not None:
            await repository.add_pending_fetch(
                _in_transaction(writer), job.id, accepted.url, accepted.authentication, now + PENDING_FETCH_LIFETIME
            )
        return job

    async def claim_pending_fetch(self, claim_for: timedelta) -> AnyRow | None:
        """A URL waiting to be fetched (with its job id and credentials), held for `claim_for` so
        that no other fetcher takes it meanwhile; a claim that runs out makes it claimable again."""
        now = clock.now()
        async with self.db.transaction() as session:
            return await repository.claim_pending_fetch(session, now, now + claim_for)

    async def store_fetched_file(self, job_id: uuid.UUID, content: bytes) -> None:
        """Keeps the fetched file for its job and only then sends the job to its agent."""
        sha256 = await cpu_bound(len(content), _sha256_hex, content)
        async with self.db.driver_transaction() as transaction:
            job = await repository.lock_job_by_id(transaction, job_id)
            await repository.delete_pending_fetch(transaction, job_id)
            if job is None or job.state != states.QUEUED:
                return  # cancelled or expired while the file was on its way
            if job.content_type == PDF_URI and not content.startswith(PDF_MAGIC):
                await self._fail(
                    transaction, job, "The file at the content URL is not a PDF (it does not start with %PDF-)."
                )
                return
            scope = Scope(job.organization_id, job.mode)
            now = clock.now()
            job.file_sha256 = sha256
            job.file_size = len(content)
            job.file_id = await repository.add_file(
                transaction,
                repository.new_file(
                    scope, content, job.file_sha256, now, now + self.limits.file_retention, FILE_CHUNK_BYTES
                ),
            )
            stored = {"file_sha256": job.file_sha256, "file_size": job.file_size, "file_id": job.file_id}
            delivery = to_agent(job, events.agent_command(job, agent_commands.JOB_DELIVER))
            repository.change_job(transaction, job.id, stored, messages=[delivery])

    async def fail_fetch(self, job_id: uuid.UUID, reason: str) -> None:
        async with self.db.driver_transaction() as transaction:
            job = await repository.lock_job_by_id(transaction, job_id)
            await repository.delete_pending_fetch(transaction, job_id)
            if job is not None and states.may_transition(job.state, states.ERROR, Actor.system):
                await self._fail(transaction, job, reason)

    async def _fail(self, transaction: DriverTransaction, job: Job, reason: str) -> None:
        message = join_messages(job.state_message, reason)
        await change_state(
            transaction, job, states.ERROR, Actor.system, clock.now(), message, also={"state_message": message}
        )

    async def expire_pending_fetches(self) -> int:
        """Ends the jobs whose URL was held its full hour without being fetched."""
        async with self.db.transaction() as session:
            job_ids = await repository.take_expired_fetches(session, clock.now())
        for job_id in job_ids:
            await self.fail_fetch(job_id, "The content URL was not fetched within an hour.")
        return len(job_ids)

    async def purge_files(self) -> int:
        async with self.db.transaction() as session:
            return await repository.purge_files(session, clock.now())

    async def purge_idempotency_keys(self) -> int:
        async with self.db.transaction() as session:
            return await idempotency_keys.purge(session, clock.now())

    async def count_active(self) -> dict[tuple[str, str], int]:
        """Jobs not yet in a final state, by state and mode."""
        async with self.db.read() as session:
            return await repository.count_active_by_state(session)

    async def get_job(self, scope: Scope, job_id: uuid.UUID) -> ShownJob:
        """The job, with a note on its printer while it waits for one that cannot print."""
        job = await repository.read_job(self.db, scope, job_id)
        if job is None:
            raise not_found("print job")
        return await shown_job(self.db, scope, job)

    async def list_jobs(self, scope: Scope, filters: JobFilters, page: PageRequest) -> Page[ShownJob]:
        async with self.db.read() as session:
            return await shown_page(session, scope, await repository.list_jobs(session, scope, filters, page))

    async def list_state_changes(self, scope: Scope, job_id: uuid.UUID) -> Sequence[AnyRow]:
        job = await repository.read_job(self.db, scope, job_id)
        if job is None:
            raise not_found("print job")
        async with self.db.read() as session:
            return await repository.list_state_changes(session, job.id)

    async def cancel_job(self, scope: Scope, job_id: uuid.UUID) -> Job:
        async with self.db.driver_transaction() as transaction:
            job = await repository.lock_job(transaction, scope, job_id)
            if job is None:
                raise not_found("print job")
            if not states.may_transition(job.state, states.CANCELLED, Actor.api):
                raise ApiError(
                    "not_cancellable", f"The job is `{job.state}`; only queued or sent jobs can be cancelled."
                )
            await change_state(
                transaction, job, states.CANCELLED, Actor.api, clock.now(), commands=[agent_commands.JOB_CANCEL]
            )
        return job

    async def _lock_computer_job(
        self, transaction: DriverTransaction, computer_id: uuid.UUID, job_id: uuid.UUID
    ) -> Job:
        job = await repository.lock_computer_job(transaction, computer_id, job_id)
        if job is None:
            raise not_found("print job")
        return job

    async def claim_delivery(self, wanted: DeliveryClaim) -> Claim:
        """Whether this push may send the job to its agent, decided and recorded in one transaction;
        a claimed job comes with its file when that has at most `wanted.content_up_to` bytes.

        A first push claims a `queued` job and makes it `sent`; a resend timer's push claims a
        `sent` job whose send count is still the one the timer saw. Whatever pushes race (a
        reconnect listing queued jobs, a `job.deliver` command, the same command delivered twice),
        the row lock lets exactly one of them through.
        """
        async with self.db.driver_transaction() as transaction:
            (claim,) = await deliveries.claim_all(transaction, [wanted])
        if claim is None:
            raise not_found("print job")
        return claim

    async def claim_deliveries(self, claims: Sequence[DeliveryClaim]) -> list[Claim | ApiError]:
        """Decides the claims of any computers' jobs in one transaction, in order: each one's
        answer is what `claim_delivery` would have answered."""
        async with self.db.driver_transaction() as transaction:
            decided = await deliveries.claim_all(transaction, claims)
        return [claim if claim is not None else not_found("print job") for claim in decided]

    async def report_state(self, computer_id: uuid.UUID, job_id: uuid.UUID, state: str, message: str | None) -> Job:
        if (unknown := _unknown_state(state)) is not None:
            raise unknown
        async with self.db.driver_transaction() as transaction:
            job = await self._lock_computer_job(transaction, computer_id, job_id)
            await _record_report(transaction, job, state, message)
        return job

    async def report_states(self, reports: Sequence[StateReport]) -> list[ApiError | None]:
        """Records the reports of any computers' jobs in one transaction, in order: each one's
        outcome is what `report_state` would have answered (None: recorded, or a repeat), so a
        refused report changes nothing and leaves the others recorded."""
        outcomes: list[ApiError | None] = [_unknown_state(report.state) for report in reports]
        wanted = {report.job_id for report, refused in zip(reports, outcomes, strict=True) if refused is None}
        if not wanted:
            return outcomes
        async with self.db.driver_transaction() as transaction:
            # Locked in id order, whatever the reports' order: two batches never wait on each other
            # in a cycle.
            jobs = await repository.lock_jobs(transaction, sorted(wanted))
            for index, report in enumerate(reports):
                job = jobs.get(report.job_id)
                if outcomes[index] is not None:
                    continue
                if job is None or job.computer_id != report.computer_id:
                    outcomes[index] = not_found("print job")
                    continue
                # The report's change and event carry its own trace, not the batch's.
                with activate_carrier(report.trace, f"record job.state {report.state}", SpanKind.INTERNAL):
                    try:
                        await _record_report(transaction, job, report.state, report.message)
                    except ApiError as refused:
                        outcomes[index] = refused
        return outcomes

    async def read_file(self, computer_id: uuid.UUID, job_id: uuid.UUID) -> AsyncIterator[tuple[bytes, int]]:
        """The job's file in chunks, each with the file's size, while the job is with its agent.

        This is the one rule for downloads: from `sent` (the push is on its way) until the agent
        reports an end, so an agent that restarts mid-print can fetch the file again."""
        job = await repository.read_computer_job(self.db, computer_id, job_id)
        if job is None:
            raise not_found("print job")
        if job.state not in _DOWNLOADABLE_STATES or job.file_id is None:
            raise ApiError("conflict", f"The job is `{job.state}`; its file is served only while it is with its agent.")
        async for chunk in self._chunks(job):
            yield chunk

    async def read_stored_file(self, scope: Scope, job_id: uuid.UUID) -> AsyncIterator[tuple[bytes, int]]:
        """The job's stored file for its organization and mode, whatever its state, while kept."""
        job = await repository.read_job(self.db, scope, job_id)
        if job is None:
            raise not_found("print job")
        kept = await repository.live_file(self.db, scope, job.file_id, clock.now())
        if not kept:
            raise ApiError(
                "file_expired",
                "This job has no stored file: files are kept 7 days, and a URL's file is stored once fetched.",
            )
        async for chunk in self._chunks(job):
            yield chunk

    async def _chunks(self, job: Job) -> AsyncIterator[tuple[bytes, int]]:
        assert job.file_id is not None
        if job.file_size == 0:
            yield b"", 0  # the size still reaches the reader
            return
        sent = 0
        for seq in itertools.count():
            if sent >= job.file_size:
                return
            # A read per chunk: a slow reader must not hold a pooled connection.
            chunk = await repository.read_file_chunk(self.db, job.file_id, seq)
            if chunk is None:
                raise not_found("print job file")
            sent += len(chunk)
            yield chunk, job.file_size

    async def list_pending(self, computer_id: uuid.UUID) -> Sequence[Job]:
        async with self.db.read() as session:
            return await repository.list_pending_jobs(session, computer_id)
