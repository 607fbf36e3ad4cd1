"""`printcloud_jobs_finished_total{state, mode}`: print jobs that reached a final state.

Counted by the replica whose transaction moved the job, once that transaction commits: a change
that rolls back never happened, and the state machine lets a job reach a final state only once, so
the sum over replicas counts every finished job once. The failure-rate alert divides its rates.
"""

from __future__ import annotations

from prometheus_client import Counter
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from printcloud.core.scope import MODES
from printcloud.jobs.domain.job import Job
from printcloud.jobs.domain.states import TERMINAL_STATES

FINISHED_JOBS = Counter(
    "printcloud_jobs_finished_total", "Print jobs that reached a final state, by that state", ["state", "mode"]
)
# Every series exists from the start, so the first job to end in a state moves its rate.
for _state in TERMINAL_STATES:
    for _mode in MODES:
        FINISHED_JOBS.labels(_state, _mode)

_PENDING = "printcloud.jobs.finished"
_LISTENING = "printcloud.jobs.finished.listening"


def count_when_committed(session: AsyncSession, job: Job) -> None:
    """Counts `job`, now in its final state, when the transaction of `session` commits."""
    sync_session = session.sync_session
    info = sync_session.info
    if _LISTENING not in info:
        # On this session alone, and only once a job finishes in it: other sessions pay nothing.
        info[_LISTENING] = True
        event.listen(sync_session, "after_commit", _count_pending)
        event.listen(sync_session, "after_rollback", _forget_pending)
    info.setdefault(_PENDING, []).append((job.state, job.mode))


def _count_pending(session: Session) -> None:
    for state, mode in session.info.pop(_PENDING, ()):
        FINISHED_JOBS.labels(state, mode).inc()


def _forget_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)
