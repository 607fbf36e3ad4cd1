"""The agent's memory of jobs: what it has seen and the last state it reported.

It is what makes delivery at-least-once safe: a job id seen before is never printed again, and
after a reconnect the last state of unfinished jobs is reported again. With a state directory it
survives restarts.

On disk it is a snapshot (`jobs.json`) and a journal beside it (`jobs.journal`, one JSON line per
change). A change appends one line rather than rewriting the snapshot, whose size grows with the
jobs kept (up to `MAX_ENTRIES`): rewriting it on every report made a busy agent's CPU per job grow
with its history. The journal is folded into a new snapshot when it outgrows the entries it
describes, and on every start.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from printcloud.protocol.constants import ERROR, TERMINAL_STATES

log = logging.getLogger(__name__)

# Seen but not yet reported (downloading), and cancelled by the service (never reported).
ACCEPTED = "accepted"
CANCELLED = "cancelled"
_FINISHED = TERMINAL_STATES | {CANCELLED}
# The agent's own marks, never sent to the gateway.
_UNREPORTED = frozenset({ACCEPTED, CANCELLED})

RETENTION_SECONDS = 8 * 24 * 3600  # longer than the 7 days a job's file can be reprinted
MAX_ENTRIES = 10_000
# Journal lines allowed beyond the entries kept before it is folded into the snapshot.
JOURNAL_SLACK = 1_000
INTERRUPTED_MESSAGE = "The agent stopped while this job was in progress; not printed again to avoid a duplicate"


@dataclass
class JobEntry:
    state: str
    message: str | None = None
    # A reported state the gateway has not acknowledged (`job.state.recorded`); it is reported
    # again on the next connection, by this process or, after a crash, the next one.
    resend: bool = False
    updated: float = 0.0

    @property
    def finished(self) -> bool:
        return self.state in _FINISHED

    @property
    def reported(self) -> bool:
        return self.state not in _UNREPORTED


class JobLedger:
    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._journal_path = path.with_suffix(".journal") if path is not None else None
        self._journal_lines = 0
        self._entries: dict[str, JobEntry] = {}
        # Acknowledged since the last write, which carries them along.
        self._acknowledged: set[str] = set()
        if path is not None:
            self._load(path)

    def __contains__(self, job_id: str) -> bool:
        return job_id in self._entries

    def get(self, job_id: str) -> JobEntry | None:
        return self._entries.get(job_id)

    def record(self, job_id: str, state: str, message: str | None = None) -> None:
        """Written before the state is sent, so that no crash can lose a report: a state the
        gateway has not acknowledged is reported again."""
        entry = JobEntry(state, message, updated=time.time())
        entry.resend = entry.reported
        self._entries[job_id] = entry
        self._append(job_id, entry)

    def acknowledge(self, job_id: str, state: str) -> None:
        """The gateway took the report of `state`; an older state's acknowledgement changes nothing.
        Kept in memory until the next write: a crash before it costs one harmless repeat, while
        writing the ledger on every acknowledgement would double its writes."""
        entry = self._entries.get(job_id)
        if entry is not None and entry.state == state:
            entry.resend = False
            self._acknowledged.add(job_id)

    def to_report_again(self) -> dict[str, JobEntry]:
        """Jobs whose last reported state the gateway should hear again after a reconnect."""
        return {
            job_id: entry
            for job_id, entry in self._entries.items()
            if entry.reported and (entry.resend or not entry.finished)
        }

    def _load(self, path: Path) -> None:
        entries: dict[str, JobEntry] = {}
        if path.exists():
            try:
                raw = json.loads(path.read_text())
                entries = {job_id: JobEntry(**value) for job_id, value in raw.items()}
            except (OSError, ValueError, TypeError):
                log.warning("job ledger unreadable; starting empty", extra={"path": str(path)})
                entries = {}
        entries.update(self._journal_entries())
        for job_id, entry in entries.items():
            if not entry.finished:
                # The data and the backend's progress died with the previous process. Whether the
                # spooler printed it is unknown, so the job ends here rather than risk a duplicate.
                entries[job_id] = JobEntry(ERROR, INTERRUPTED_MESSAGE, True, time.time())
        self._entries = entries
        self._save()

    def fold(self) -> None:
        """Folds the journal into the snapshot now, as a stopping agent does."""
        self._save()

    def _journal_entries(self) -> dict[str, JobEntry]:
        """The changes appended since the snapshot, oldest first. A line cut short by a crash (the
        last one) or unreadable is skipped: the line was written before its report was sent, so
        the report it stood for never left either."""
        assert self._journal_path is not None
        try:
            lines = self._journal_path.read_text().splitlines()
        except FileNotFoundError:
            return {}
        except OSError:
            log.warning("job ledger journal unreadable; using the snapshot", extra={"path": str(self._journal_path)})
            return {}
        entries: dict[str, JobEntry] = {}
        for line in lines:
            try:
                job_id, value = json.loads(line)
                entries[str(job_id)] = JobEntry(**value)
            except (ValueError, TypeError):
                log.warning("job ledger journal line unreadable; skipped", extra={"path": str(self._journal_path)})
        return entries

    def _append(self, job_id: str, entry: JobEntry) -> None:
        if self._journal_path is None:
            return
        if self._journal_lines >= len(self._entries) + JOURNAL_SLACK:
            self._save()
            return
        changed = [(acknowledged, self._entries[acknowledged]) for acknowledged in self._acknowledged - {job_id}]
        changed.append((job_id, entry))
        self._acknowledged.clear()
        with self._journal_path.open("a") as journal:
            journal.write("".join(json.dumps([key, asdict(value)]) + "\n" for key, value in changed))
        self._journal_lines += len(changed)

    def _save(self) -> None:
        """A new snapshot of every entry, then an empty journal: a crash between the two leaves
        journal lines the snapshot already holds, which replay to the same entries."""
        if self._path is None or self._journal_path is None:
            return
        self._prune()
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text(json.dumps({job_id: asdict(entry) for job_id, entry in self._entries.items()}))
        os.replace(tmp, self._path)  # atomic: a crash leaves the old or the new file, never half
        self._journal_path.unlink(missing_ok=True)
        self._journal_lines = 0
        self._acknowledged.clear()

    def _prune(self) -> None:
        horizon = time.time() - RETENTION_SECONDS
        kept = [(k, v) for k, v in self._entries.items() if not (v.finished and not v.resend and v.updated < horizon)]
        self._entries = dict(kept[-MAX_ENTRIES:])
