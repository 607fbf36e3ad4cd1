"""`printcloud_jobs_finished_total{state, mode}`: print jobs that reached a final state.

Counted by the replica whose transaction moved the job, once that transaction commits: a change
that rolls back never happened, and the state machine lets a job reach a final state only once, so
the sum over replicas counts every finished job once. The failure-rate alert divides its rates.
"""

from __future__ import annotations

from prometheus_client import Counter

from printcloud.core.db.driver_transaction import DriverTransaction
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


def count_when_committed(transaction: DriverTransaction, job: Job) -> None:
    """Counts `job`, now in its final state, when `transaction` commits."""
    transaction.after_commit(FINISHED_JOBS.labels(job.state, job.mode).inc)
